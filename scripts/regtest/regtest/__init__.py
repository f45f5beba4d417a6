"""A regtest node for Airlock's tests and demo: Bitcoin Core's libbitcoinkernel validates, this package serves.

Modules: `primitives` (serialization, hashes, merkle), `script` (script helpers, asm, addresses, descriptors),
`chain` (the kernel, mining, the block/tx/scripthash indexes), `mempool` (transaction acceptance), `electrum`
(Electrum protocol 1.4 over TCP), `rpc` (Bitcoin Core JSON-RPC over HTTP), `node` (the process), `cli` (the client).
"""
