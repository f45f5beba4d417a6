"""The development node as a node: web3.py and eth-account (peers not written here) talk to it over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest
from conftest import HERE, start_node, stop_node
from eth_account import Account
from web3 import Web3
from web3.exceptions import ContractLogicError

ERC20_ABI = [
    {"name": "balanceOf", "type": "function", "stateMutability": "view",
     "inputs": [{"name": "a", "type": "address"}], "outputs": [{"name": "", "type": "uint256"}]},
    {"name": "symbol", "type": "function", "stateMutability": "view", "inputs": [],
     "outputs": [{"name": "", "type": "string"}]},
    {"name": "decimals", "type": "function", "stateMutability": "view", "inputs": [],
     "outputs": [{"name": "", "type": "uint8"}]},
    {"name": "transfer", "type": "function", "stateMutability": "nonpayable",
     "inputs": [{"name": "to", "type": "address"}, {"name": "v", "type": "uint256"}],
     "outputs": [{"name": "", "type": "bool"}]},
]  # fmt: skip
TRANSFER_TOPIC = Web3.keccak(text="Transfer(address,address,uint256)").hex()
GWEI = 10**9


def rpc(port: int, payload: object) -> object:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def cli(port: int, *args: str) -> object:
    out = subprocess.run(
        [sys.executable, "-m", "devnet.cli", "--port", str(port), *args],
        env={"PYTHONPATH": str(HERE)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def send(w3: Web3, account, chain_id: int, **fields) -> dict:
    tx = {
        "type": 2,
        "chainId": chain_id,
        "nonce": fields.pop("nonce", None),
        "maxFeePerGas": 20 * GWEI,
        "maxPriorityFeePerGas": GWEI,
        "gas": fields.pop("gas", 21_000),
        **fields,
    }
    if tx["nonce"] is None:
        tx["nonce"] = w3.eth.get_transaction_count(account.address, "pending")
    signed = account.sign_transaction(tx)
    return w3.eth.send_raw_transaction(signed.raw_transaction)


def test_chain_and_faucet(node, w3):
    assert w3.eth.chain_id == node["chain_id"]
    account = Account.create()
    start = w3.eth.block_number
    cli(node["rpc"], "faucet", account.address, str(3 * 10**18))
    assert w3.eth.get_balance(account.address) == 3 * 10**18
    assert w3.eth.block_number == start + 1  # automine: a block per transaction


def test_signed_transfer_moves_value_and_pays_gas(node, w3):
    sender, receiver = Account.create(), Account.create()
    cli(node["rpc"], "faucet", sender.address, str(10**18))
    tx_hash = send(w3, sender, node["chain_id"], to=receiver.address, value=12345)
    receipt = w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["status"] == 1 and receipt["gasUsed"] == 21_000
    assert w3.eth.get_balance(receiver.address) == 12345
    spent = 12345 + receipt["gasUsed"] * receipt["effectiveGasPrice"]
    assert w3.eth.get_balance(sender.address) == 10**18 - spent
    tx = w3.eth.get_transaction(tx_hash)
    assert tx["from"] == sender.address and tx["nonce"] == 0 and tx["maxFeePerGas"] == 20 * GWEI


def test_token_mint_transfer_logs_and_revert(node, w3):
    token = w3.eth.contract(address=node["token"], abi=ERC20_ABI)
    assert token.functions.symbol().call() == "ATT" and token.functions.decimals().call() == 6
    holder, other = Account.create(), Account.create()
    cli(node["rpc"], "faucet", holder.address, str(10**18))
    cli(node["rpc"], "mint", holder.address, "5000000")
    assert token.functions.balanceOf(holder.address).call() == 5_000_000
    data = token.encode_abi("transfer", args=[other.address, 1_250_000])
    tx_hash = send(w3, holder, node["chain_id"], to=node["token"], data=data, gas=100_000)
    receipt = w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["status"] == 1
    assert token.functions.balanceOf(other.address).call() == 1_250_000
    logs = w3.eth.get_logs(
        {
            "fromBlock": 0,
            "toBlock": "latest",
            "address": node["token"],
            "topics": [TRANSFER_TOPIC, None, "0x" + "00" * 12 + other.address[2:].lower()],
        }
    )
    assert len(logs) == 1 and int(logs[0]["data"].hex(), 16) == 1_250_000
    assert logs[0]["transactionHash"] == tx_hash
    # More than the balance: mined, reverted, gas spent.
    data = token.encode_abi("transfer", args=[other.address, 10**12])
    failed = send(w3, holder, node["chain_id"], to=node["token"], data=data, gas=100_000)
    receipt = w3.eth.get_transaction_receipt(failed)
    assert receipt["status"] == 0 and 21_000 < receipt["gasUsed"] <= 100_000
    assert token.functions.balanceOf(other.address).call() == 1_250_000
    # Its estimate reverts as Geth reports it: code 3, the reason in the message, the Error(string) revert data;
    # web3.py (a peer) reads the reason from it.
    with pytest.raises(ContractLogicError) as info:
        w3.eth.estimate_gas({"from": holder.address, "to": node["token"], "data": data})
    assert "balance too low" in str(info.value)
    call = {"from": holder.address, "to": node["token"], "data": data}
    error = rpc(node["rpc"], {"jsonrpc": "2.0", "id": 1, "method": "eth_estimateGas", "params": [call]})["error"]
    assert error["code"] == 3 and error["message"] == "execution reverted: balance too low"
    assert error["data"].startswith("0x08c379a0") and bytes.fromhex(error["data"][2:])[68:83] == b"balance too low"


def test_fee_history_matches_blocks(node, w3):
    latest = w3.eth.block_number
    history = w3.eth.fee_history(4, "latest", [10, 50, 90])
    assert history["oldestBlock"] == latest - 3
    assert len(history["baseFeePerGas"]) == 5 and len(history["reward"]) == 4
    for offset, fee in enumerate(history["baseFeePerGas"][:4]):
        assert fee == w3.eth.get_block(latest - 3 + offset)["baseFeePerGas"]
    assert all(r[0] <= r[1] <= r[2] for r in history["reward"])
    assert w3.eth.max_priority_fee == GWEI


def test_estimate_and_call(node, w3):
    account, payer = Account.create(), Account.create()
    cli(node["rpc"], "faucet", payer.address, str(10**18))
    assert w3.eth.estimate_gas({"from": payer.address, "to": account.address, "value": 5}) == 21_000
    token = w3.eth.contract(address=node["token"], abi=ERC20_ABI)
    assert token.functions.balanceOf(account.address).call() == 0


def test_errors_and_batches(node):
    port = node["rpc"]
    assert rpc(port, {"jsonrpc": "2.0", "id": 1, "method": "eth_nope", "params": []})["error"]["code"] == -32601
    bad = rpc(port, {"jsonrpc": "2.0", "id": 2, "method": "eth_getBalance", "params": ["0x00", "0x01x"]})
    assert bad["error"]["code"] in (-32602, -32000)
    batch = rpc(
        port,
        [
            {"jsonrpc": "2.0", "id": 7, "method": "eth_chainId", "params": []},
            {"jsonrpc": "2.0", "id": 8, "method": "eth_blockNumber", "params": []},
        ],
    )
    assert [r["id"] for r in batch] == [7, 8] and batch[0]["result"] == hex(node["chain_id"])
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=b"{not json", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["error"]["code"] == -32700


def test_manual_mining_keeps_transactions_pending():
    proc, info = start_node("--automine", "0")
    try:
        w3 = Web3(Web3.HTTPProvider(f"http://127.0.0.1:{info['rpc']}"))
        sender, receiver = Account.create(), Account.create()
        cli(info["rpc"], "faucet", sender.address, str(10**18))
        assert w3.eth.get_balance(sender.address) == 0  # not mined yet
        cli(info["rpc"], "mine")
        assert w3.eth.get_balance(sender.address) == 10**18
        tx_hash = send(w3, sender, info["chain_id"], to=receiver.address, value=1)
        assert rpc(info["rpc"], {"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionReceipt",
                                 "params": [tx_hash.to_0x_hex()]})["result"] is None  # fmt: skip
        assert w3.eth.get_transaction_count(sender.address, "pending") == 1
        assert w3.eth.get_transaction_count(sender.address, "latest") == 0
        # A replacement (same nonce, higher fees) is what mines; the first is gone.
        replacement = send(w3, sender, info["chain_id"], to=receiver.address, value=2, nonce=0,
                           maxFeePerGas=40 * GWEI, maxPriorityFeePerGas=2 * GWEI)  # fmt: skip
        assert w3.eth.get_transaction_count(sender.address, "pending") == 1
        cli(info["rpc"], "mine")
        assert w3.eth.get_transaction_receipt(replacement)["status"] == 1
        assert w3.eth.get_balance(receiver.address) == 2
        lookup = {"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionByHash", "params": [tx_hash.to_0x_hex()]}
        assert rpc(info["rpc"], lookup)["result"] is None
    finally:
        stop_node(proc)


def test_log_range_limit():
    proc, info = start_node("--max-log-range", "2")
    try:
        port = info["rpc"]
        too_wide = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "eth_getLogs",
            "params": [{"fromBlock": "0x0", "toBlock": "0x5"}],
        }
        assert rpc(port, too_wide)["error"]["code"] == -32005
        narrow = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "eth_getLogs",
            "params": [{"fromBlock": "0x0", "toBlock": "0x1"}],
        }
        assert isinstance(rpc(port, narrow)["result"], list)
    finally:
        stop_node(proc)


@pytest.mark.parametrize("amount", [0, 1])
def test_cli_rejects_bad_commands(node, amount):
    out = subprocess.run(
        [sys.executable, "-m", "devnet.cli", "--port", str(node["rpc"]), "faucet", "0xnothex", str(amount)],
        env={"PYTHONPATH": str(HERE)},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "error:" in out.stderr


def test_log_index_answers_what_eth_testers_own_filter_answers():
    """eth_getLogs reads the node's log index (rpc.Methods._index_logs); eth-tester's filter, which reads every receipt
    again per query, is the reference: the same logs, fields and order for each query shape, also after new blocks."""
    from devnet.chain import DevChain
    from devnet.rpc import Methods, format_log

    chain = DevChain()
    methods = Methods(chain)
    holder, other = Account.create().address, Account.create().address
    for amount in (1, 2, 3):
        chain.mint(holder, amount)
    topic = TRANSFER_TOPIC
    to_holder = "0x" + "00" * 12 + holder[2:].lower()

    def reference(start, end, address=None, topics=None):
        filter_id = chain.tester.create_log_filter(from_block=start, to_block=end, address=address, topics=topics)
        try:
            return [format_log(log) for log in chain.tester.get_all_filter_logs(filter_id)]
        finally:
            chain.tester.delete_filter(filter_id)

    def check(latest):
        queries = [
            ({"fromBlock": "0x0", "toBlock": "latest"}, (0, latest, None, None)),
            ({"fromBlock": "0x0", "toBlock": "latest", "topics": [topic]}, (0, latest, None, [topic])),
            (
                {
                    "fromBlock": "0x2",
                    "toBlock": hex(latest - 1),
                    "address": chain.token,
                    "topics": [None, None, to_holder],
                },
                (2, latest - 1, chain.token, [None, None, to_holder]),
            ),
            (
                {"fromBlock": "0x0", "toBlock": "latest", "topics": [[topic, "0x" + "11" * 32]]},
                (0, latest, None, [topic]),
            ),
            ({"fromBlock": "0x0", "toBlock": "latest", "address": other}, (0, latest, other, None)),
        ]
        for query, (start, end, address, topics) in queries:
            assert methods.get_logs(query) == reference(start, end, address, topics), query

    check(methods._latest())
    assert len(methods.get_logs({"fromBlock": "0x0", "toBlock": "latest", "topics": [topic]})) >= 3
    # New blocks after the index was built are indexed on the next query.
    chain.mint(other, 7)
    check(methods._latest())
    assert (
        len(
            methods.get_logs(
                {
                    "fromBlock": "0x0",
                    "toBlock": "latest",
                    "address": chain.token,
                    "topics": [topic, None, "0x" + "00" * 12 + other[2:].lower()],
                }
            )
        )
        == 1
    )
