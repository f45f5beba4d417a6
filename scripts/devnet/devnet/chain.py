"""The development chain: eth-tester on py-evm, one ERC-20 token deployed at start, faucet and mint helpers.

Everything here runs under the server's lock: eth-tester is not thread-safe.
"""

from __future__ import annotations

from pathlib import Path

from eth_abi import encode
from eth_tester import EthereumTester, PyEVMBackend
from eth_utils import function_signature_to_4byte_selector, to_checksum_address

TOKEN_SOURCE = Path(__file__).with_name("token.vy")
TOKEN_NAME = "Airlock Test Token"
TOKEN_SYMBOL = "ATT"
TOKEN_DECIMALS = 6
GWEI = 10**9


def compile_token() -> tuple[str, list]:
    """Compiles token.vy with the vyper package: (bytecode hex, ABI)."""
    import vyper

    out = vyper.compile_code(TOKEN_SOURCE.read_text(), output_formats=["bytecode", "abi"])
    return out["bytecode"], out["abi"]


def selector(signature: str) -> bytes:
    return function_signature_to_4byte_selector(signature)


class DevChain:
    """eth-tester with the token deployed by the first funded account (the faucet and the token's minter)."""

    def __init__(self, automine: bool = True):
        self.tester = EthereumTester(PyEVMBackend())
        self.faucet = self.tester.get_accounts()[0]
        bytecode, self.token_abi = compile_token()
        args = encode(["string", "string", "uint8"], [TOKEN_NAME, TOKEN_SYMBOL, TOKEN_DECIMALS])
        tx_hash = self.tester.send_transaction(
            {
                "from": self.faucet,
                "data": bytecode + args.hex(),
                "gas": 3_000_000,
                "max_fee_per_gas": 10 * GWEI,
                "max_priority_fee_per_gas": GWEI,
            }
        )
        receipt = self.tester.get_transaction_receipt(tx_hash)
        if receipt["status"] != 1 or not receipt["contract_address"]:
            raise RuntimeError("the token did not deploy")
        self.token = to_checksum_address(receipt["contract_address"])
        self.automine = automine
        self.pending: dict[str, tuple[str, int]] = {}  # hash -> (sender, nonce) while not mined
        if not automine:
            self.tester.disable_auto_mine_transactions()

    def note_sent(self, tx_hash: str) -> None:
        """Remembers a transaction sent while mining is manual (eth-tester does not count pending nonces)."""
        if self.automine:
            return
        tx = self.tester.get_transaction_by_hash(tx_hash)
        self.pending[tx_hash] = (tx["from"], int(tx["nonce"]))

    def pending_nonce(self, address: str) -> int:
        """The next nonce counting transactions not yet mined, as a node's "pending" tag does."""
        nonce = self.tester.get_nonce(address, "latest")
        for sender, used in self.pending.values():
            if sender == address and used >= nonce:
                nonce = used + 1
        return nonce

    @property
    def chain_id(self) -> int:
        return int(self.tester.backend.chain.chain_id)

    def _send_from_faucet(self, to: str, value: int = 0, data: bytes = b"", gas: int = 100_000) -> str:
        return self.tester.send_transaction(
            {
                "from": self.faucet,
                "to": to,
                "value": value,
                "data": "0x" + data.hex(),
                "gas": gas,
                "max_fee_per_gas": 10 * GWEI,
                "max_priority_fee_per_gas": GWEI,
                "nonce": self.pending_nonce(self.faucet),
            }
        )

    def fund(self, address: str, wei: int) -> str:
        """Sends `wei` from the faucet; returns the transaction hash."""
        tx_hash = self._send_from_faucet(to_checksum_address(address), value=wei, gas=21_000)
        self.note_sent(tx_hash)
        return tx_hash

    def mint(self, address: str, amount: int) -> str:
        """Mints `amount` base units of the token to `address`; returns the transaction hash."""
        data = selector("mint(address,uint256)") + encode(
            ["address", "uint256"], [to_checksum_address(address), amount]
        )
        tx_hash = self._send_from_faucet(self.token, data=data)
        self.note_sent(tx_hash)
        return tx_hash

    def mine(self, count: int = 1) -> list[str]:
        """Mines `count` blocks (pending transactions go into the first); forgets what they mined or replaced."""
        blocks = list(self.tester.mine_blocks(count))
        self.pending.clear()
        return blocks
