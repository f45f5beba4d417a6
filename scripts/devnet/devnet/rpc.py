"""Ethereum JSON-RPC over eth-tester, answered as a node answers: hex quantities, camelCase fields, error objects.

Methods: the subset a wallet uses (chain id, blocks, balances, nonces, calls, gas estimates, fee history, raw
transactions, receipts, logs) plus `dev_faucet`, `dev_mint` and `dev_mine` for the fixture's cli.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from eth_tester.exceptions import TransactionFailed, ValidationError
from eth_utils import to_checksum_address

from .chain import GWEI, DevChain

PRIORITY_FEE = GWEI  # eth_maxPriorityFeePerGas: a fixed 1 gwei suggestion


class RPCError(Exception):
    """A JSON-RPC error object: code and message (and optional data)."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


ERROR_SELECTOR = bytes.fromhex("08c379a0")  # Error(string)


def revert_error(error: Exception) -> RPCError:
    """A revert as Geth reports it: code 3, "execution reverted" with the reason when it is an Error(string), and
    the revert data in hex under `data`. eth-tester gives the revert data as py-evm's Revert holding the bytes, as
    the text of their repr (b'...'), or as the reason it decoded itself."""
    raw = error.args[0] if error.args else b""
    if isinstance(raw, BaseException):  # py-evm's Revert, holding the revert data
        raw = raw.args[0] if raw.args else b""
    if isinstance(raw, str) and raw[:2] in ("b'", 'b"'):
        try:
            raw = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            pass
    if isinstance(raw, str):  # the reason, already decoded: encoded again as Error(string)
        text = raw.encode()
        padded = text + bytes(-len(text) % 32)
        raw = ERROR_SELECTOR + (32).to_bytes(32, "big") + len(text).to_bytes(32, "big") + padded
    if not isinstance(raw, bytes):
        return RPCError(3, f"execution reverted: {raw}")
    message = "execution reverted"
    if raw[:4] == ERROR_SELECTOR and len(raw) >= 68:
        length = int.from_bytes(raw[36:68], "big")
        reason = raw[68 : 68 + length].decode("utf-8", errors="replace")
        message += f": {reason}"
    return RPCError(3, message, "0x" + raw.hex())


def quantity(value: int) -> str:
    if value < 0:
        raise ValueError("negative quantity")
    return hex(value)


def parse_quantity(value: Any, field: str) -> int:
    if not isinstance(value, str) or not value.startswith("0x") or len(value) < 3:
        raise RPCError(-32602, f"invalid argument: {field} must be a hex quantity")
    digits = value[2:]
    if len(digits) > 1 and digits[0] == "0":
        raise RPCError(-32602, f"invalid argument: {field} has leading zeros")
    try:
        return int(digits, 16)
    except ValueError:
        raise RPCError(-32602, f"invalid argument: {field} is not hex") from None


def data_hex(value: Any) -> str:
    if value is None:
        return "0x"
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    return value if str(value).startswith("0x") else "0x" + str(value)


class Methods:
    """The method table; `call(method, params)` answers one request."""

    def __init__(self, chain: DevChain, max_log_range: int | None = None):
        self.chain = chain
        self.tester = chain.tester
        self.max_log_range = max_log_range
        self._indexed_hashes: list[Any] = []
        self._logs: list[dict] = []
        self.table: dict[str, Callable[..., Any]] = {
            "web3_clientVersion": lambda: "airlock-devnet/eth-tester",
            "net_version": lambda: str(self.chain.chain_id),
            "eth_chainId": lambda: quantity(self.chain.chain_id),
            "eth_blockNumber": lambda: quantity(self._latest()),
            "eth_getBalance": self.get_balance,
            "eth_getTransactionCount": self.get_transaction_count,
            "eth_getCode": lambda address, block="latest": data_hex(
                self.tester.get_code(to_checksum_address(address), self._block(block))
            ),
            "eth_call": self.call_contract,
            "eth_estimateGas": self.estimate_gas,
            "eth_gasPrice": lambda: quantity(self._next_base_fee() + PRIORITY_FEE),
            "eth_maxPriorityFeePerGas": lambda: quantity(PRIORITY_FEE),
            "eth_feeHistory": self.fee_history,
            "eth_sendRawTransaction": self.send_raw_transaction,
            "eth_getTransactionByHash": self.get_transaction,
            "eth_getTransactionReceipt": self.get_receipt,
            "eth_getBlockByNumber": self.get_block,
            "eth_getLogs": self.get_logs,
            "dev_faucet": lambda address, wei: self.chain.fund(address, parse_quantity(wei, "wei")),
            "dev_mint": lambda address, amount: self.chain.mint(address, parse_quantity(amount, "amount")),
            "dev_mine": lambda count="0x1": self.chain.mine(parse_quantity(count, "count")),
            "dev_token": lambda: self.chain.token,
        }

    def call(self, method: str, params: list) -> Any:
        handler = self.table.get(method)
        if handler is None:
            raise RPCError(-32601, f"the method {method} does not exist/is not available")
        try:
            return handler(*params)
        except RPCError:
            raise
        except TypeError as error:
            raise RPCError(-32602, f"invalid params: {error}") from None
        except TransactionFailed as error:
            raise revert_error(error) from None
        except (ValidationError, ValueError) as error:
            raise RPCError(-32000, str(error)) from None
        except Exception as error:  # any other refusal of eth-tester or py-evm is the node's error, not a crash
            raise RPCError(-32000, f"{type(error).__name__}: {error}") from None

    # Blocks

    def _latest(self) -> int:
        return int(self.tester.get_block_by_number("latest")["number"])

    def _block(self, tag: Any) -> Any:
        if tag in ("latest", "pending", "earliest", "safe", "finalized"):
            return "latest" if tag in ("safe", "finalized") else tag
        return parse_quantity(tag, "block")

    def _next_base_fee(self) -> int:
        block = self.tester.get_block_by_number("latest")
        return next_base_fee(block)

    def get_block(self, tag: Any, full: bool = False) -> dict | None:
        try:
            block = self.tester.get_block_by_number(self._block(tag))
        except Exception:  # eth-tester raises BlockNotFound for heights past the tip
            return None
        return {
            "number": quantity(block["number"]),
            "hash": block["hash"],
            "parentHash": block["parent_hash"],
            "timestamp": quantity(block["timestamp"]),
            "gasLimit": quantity(block["gas_limit"]),
            "gasUsed": quantity(block["gas_used"]),
            "baseFeePerGas": quantity(block["base_fee_per_gas"]),
            "miner": block["coinbase"],
            "transactions": [self.get_transaction(h) if full else h for h in block["transactions"]],
        }

    def fee_history(self, count: Any, newest: Any, percentiles: list | None = None) -> dict:
        count = parse_quantity(count, "blockCount") if isinstance(count, str) else int(count)
        newest_number = self._latest() if newest in ("latest", "pending") else parse_quantity(newest, "newestBlock")
        count = max(1, min(count, 1024, newest_number + 1))
        oldest = newest_number - count + 1
        base_fees, ratios, rewards = [], [], []
        for number in range(oldest, newest_number + 1):
            block = self.tester.get_block_by_number(number)
            base_fees.append(quantity(block["base_fee_per_gas"]))
            ratios.append(block["gas_used"] / block["gas_limit"])
            if percentiles is not None:
                rewards.append([quantity(r) for r in block_rewards(self.tester, block, percentiles)])
        base_fees.append(quantity(next_base_fee(self.tester.get_block_by_number(newest_number))))
        out = {"oldestBlock": quantity(oldest), "baseFeePerGas": base_fees, "gasUsedRatio": ratios}
        if percentiles is not None:
            out["reward"] = rewards
        return out

    # Accounts and calls

    def get_balance(self, address: str, block: Any = "latest") -> str:
        return quantity(self.tester.get_balance(to_checksum_address(address), self._block(block)))

    def get_transaction_count(self, address: str, block: Any = "latest") -> str:
        address = to_checksum_address(address)
        if block == "pending":
            return quantity(self.chain.pending_nonce(address))
        return quantity(self.tester.get_nonce(address, self._block(block)))

    def _tx_params(self, call: dict) -> dict:
        out: dict[str, Any] = {}
        if call.get("from"):
            out["from"] = to_checksum_address(call["from"])
        else:
            out["from"] = self.chain.faucet  # a sender that can pay for the gas, as a node assumes
        if call.get("to"):
            out["to"] = to_checksum_address(call["to"])
        out["data"] = call.get("data") or call.get("input") or "0x"
        for key, name in (("value", "value"), ("gas", "gas")):
            if call.get(key) is not None:
                out[name] = parse_quantity(call[key], key)
        if "gas" not in out:
            out["gas"] = 10_000_000
        return out

    def call_contract(self, call: dict, block: Any = "latest") -> str:
        return data_hex(self.tester.call(self._tx_params(call), self._block(block)))

    def estimate_gas(self, call: dict, block: Any = "latest") -> str:
        params = self._tx_params(call)
        params.pop("gas", None)
        return quantity(self.tester.estimate_gas(params, self._block(block)))

    # Transactions

    def send_raw_transaction(self, raw: str) -> str:
        if not isinstance(raw, str) or not raw.startswith("0x"):
            raise RPCError(-32602, "invalid argument: raw transaction must be hex")
        tx_hash = self.tester.send_raw_transaction(raw)
        self.chain.note_sent(tx_hash)
        return tx_hash

    def get_transaction(self, tx_hash: str) -> dict | None:
        try:
            tx = self.tester.get_transaction_by_hash(tx_hash)
        except Exception:  # TransactionNotFound
            return None
        out = {
            "hash": tx["hash"],
            "type": tx.get("type", "0x0"),
            "nonce": quantity(tx["nonce"]),
            "blockHash": tx.get("block_hash"),
            "blockNumber": None if tx.get("block_number") is None else quantity(tx["block_number"]),
            "transactionIndex": None if tx.get("transaction_index") is None else quantity(tx["transaction_index"]),
            "from": tx["from"],
            "to": tx.get("to") or None,
            "value": quantity(tx["value"]),
            "gas": quantity(tx["gas"]),
            "input": data_hex(tx.get("data")),
            "chainId": quantity(tx.get("chain_id") or self.chain.chain_id),
            "gasPrice": quantity(tx["gas_price"]),
            "v": quantity(tx["v"]),
            "r": quantity(tx["r"]),
            "s": quantity(tx["s"]),
        }
        if "max_fee_per_gas" in tx:
            out["maxFeePerGas"] = quantity(tx["max_fee_per_gas"])
            out["maxPriorityFeePerGas"] = quantity(tx["max_priority_fee_per_gas"])
        return out

    def get_receipt(self, tx_hash: str) -> dict | None:
        try:
            receipt = self.tester.get_transaction_receipt(tx_hash)
        except Exception:  # TransactionNotFound
            return None
        if receipt is None or receipt.get("block_number") is None:
            return None
        return {
            "transactionHash": receipt["transaction_hash"],
            "transactionIndex": quantity(receipt["transaction_index"]),
            "blockHash": receipt["block_hash"],
            "blockNumber": quantity(receipt["block_number"]),
            "from": receipt["from"],
            "to": receipt.get("to"),
            "contractAddress": receipt.get("contract_address"),
            "cumulativeGasUsed": quantity(receipt["cumulative_gas_used"]),
            "gasUsed": quantity(receipt["gas_used"]),
            "effectiveGasPrice": quantity(receipt["effective_gas_price"]),
            "status": quantity(receipt["status"]),
            "type": receipt.get("type", "0x0"),
            "logs": [format_log(log) for log in receipt["logs"]],
        }

    def get_logs(self, query: dict) -> list:
        latest = self._latest()
        start = self._log_bound(query.get("fromBlock", "latest"), latest)
        end = self._log_bound(query.get("toBlock", "latest"), latest)
        if self.max_log_range is not None and end - start + 1 > self.max_log_range:
            raise RPCError(-32005, f"query exceeds max block range {self.max_log_range}")
        address = query.get("address")
        addresses = None
        if isinstance(address, str):
            addresses = {to_checksum_address(address).lower()}
        elif isinstance(address, list):
            addresses = {to_checksum_address(a).lower() for a in address}
        topics = query.get("topics") or []
        if not isinstance(topics, list) or len(topics) > 4:
            raise RPCError(-32602, "invalid params: topics must be a list of at most 4 entries")
        wanted = [None if t is None else {hex_topic(x) for x in (t if isinstance(t, list) else [t])} for t in topics]
        self._index_logs(latest)
        return [
            log
            for log in self._logs
            if start <= int(log["blockNumber"], 16) <= end
            and (addresses is None or log["address"].lower() in addresses)
            and len(log["topics"]) >= len(wanted)
            and all(w is None or log["topics"][i].lower() in w for i, w in enumerate(wanted))
        ]

    def _index_logs(self, latest: int) -> None:
        """Brings the log index up to `latest`.

        eth-tester's own filters read every block's receipts again on each query, finding each transaction by a walk
        of the chain and recovering its sender in pure Python (a query over 1,000 blocks takes minutes), so the node
        reads each block's receipts once from py-evm, keeps their logs in chain order (fields as eth-tester writes
        them: `logIndex` counts within the transaction), and starts over when the tip it indexed is no longer on the
        chain (a snapshot reverted)."""
        chain = self.tester.backend.chain
        if self._indexed_hashes:
            number = len(self._indexed_hashes) - 1
            if number > latest or chain.get_canonical_block_by_number(number).hash != self._indexed_hashes[-1]:
                self._indexed_hashes, self._logs = [], []
        for number in range(len(self._indexed_hashes), latest + 1):
            block = chain.get_canonical_block_by_number(number)
            receipts = block.get_receipts(chain.chaindb)
            for index, (transaction, receipt) in enumerate(zip(block.transactions, receipts, strict=True)):
                for log_index, log in enumerate(receipt.logs):
                    self._logs.append(
                        {
                            "address": to_checksum_address(log.address),
                            "topics": [data_hex(topic.to_bytes(32, "big")) for topic in log.topics],
                            "data": data_hex(log.data),
                            "blockNumber": quantity(number),
                            "blockHash": data_hex(block.hash),
                            "transactionHash": data_hex(transaction.hash),
                            "transactionIndex": quantity(index),
                            "logIndex": quantity(log_index),
                            "removed": False,
                        }
                    )
            self._indexed_hashes.append(block.hash)

    def _log_bound(self, tag: Any, latest: int) -> int:
        if tag in ("latest", "pending", "safe", "finalized"):
            return latest
        if tag == "earliest":
            return 0
        return parse_quantity(tag, "block")


def hex_topic(topic: Any) -> str:
    """A topic of a log query as the index holds it: lower-case hex with `0x` (eth-tester took it without too)."""
    if not isinstance(topic, str):
        raise RPCError(-32602, "invalid params: a topic must be a hex string")
    text = topic.lower()
    return text if text.startswith("0x") else "0x" + text


def format_log(log: dict) -> dict:
    return {
        "address": log["address"],
        "topics": [data_hex(t) for t in log["topics"]],
        "data": data_hex(log["data"]),
        "blockNumber": quantity(log["block_number"]),
        "blockHash": log["block_hash"],
        "transactionHash": log["transaction_hash"],
        "transactionIndex": quantity(log["transaction_index"]),
        "logIndex": quantity(log["log_index"]),
        "removed": False,
    }


def next_base_fee(block: dict) -> int:
    """EIP-1559's base fee of the block after `block`."""
    base, used, target = block["base_fee_per_gas"], block["gas_used"], block["gas_limit"] // 2
    if used == target:
        return base
    if used > target:
        return base + max(1, base * (used - target) // target // 8)
    return base - base * (target - used) // target // 8


def block_rewards(tester, block: dict, percentiles: list) -> list[int]:
    """Effective priority fees at the given percentiles of the block's gas, as Geth computes them (0 when empty)."""
    items = []
    for tx_hash in block["transactions"]:
        tx = tester.get_transaction_by_hash(tx_hash)
        receipt = tester.get_transaction_receipt(tx_hash)
        reward = receipt["effective_gas_price"] - block["base_fee_per_gas"]
        items.append((max(reward, 0), receipt["gas_used"]))
        del tx
    if not items:
        return [0 for _ in percentiles]
    items.sort()
    total = sum(gas for _, gas in items)
    out, index, cumulative = [], 0, items[0][1]
    for p in percentiles:
        threshold = total * float(p) / 100
        while cumulative < threshold and index < len(items) - 1:
            index += 1
            cumulative += items[index][1]
        out.append(items[index][0])
    return out
