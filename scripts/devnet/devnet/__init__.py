"""An Ethereum development node for Airlock's demo and tests: eth-tester and py-evm behind a JSON-RPC server."""
