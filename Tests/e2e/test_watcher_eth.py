"""Ethereum on the watcher (docs/architecture.md section 10, issue 16) against the devnet (scripts/devnet, eth-tester on
py-evm behind a real HTTP JSON-RPC server), with both executables as a user runs them and peers not written here:
web3.py reads the balances the watcher shows, eth-account signs a watcher request as a second signer would.

The round trips go through PNG files: the signer's account export, the watcher's request, the signer's signature.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cbor2
import pytest
import rlp
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from test_eth_signer import KDF, MNEMONIC, ur_cbor, ur_text

REPO = Path(__file__).resolve().parents[2]
DEVNET = REPO / "scripts" / "devnet"
Account.enable_unaudited_hdwallet_features()
ADDRESS0 = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0").address
RECIPIENT = to_checksum_address("0x" + "35" * 20)
TOKEN_RECIPIENT = to_checksum_address("0x" + "36" * 20)


def start_devnet(*args: str):
    proc = subprocess.Popen(
        [sys.executable, "-m", "devnet.node", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**__import__("os").environ, "PYTHONPATH": str(DEVNET)},
        text=True,
    )
    line = proc.stdout.readline()
    assert line, "the devnet node printed nothing"
    return proc, json.loads(line)


@pytest.fixture(scope="module")
def devnet():
    proc, info = start_devnet("--max-log-range", "3")
    yield info
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def manual_devnet():
    """A devnet that mines only when told (`dev_mine`), so a transaction stays pending and can be replaced."""
    proc, info = start_devnet("--automine", "0")
    yield info
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def w3(devnet):
    from web3 import Web3

    return Web3(Web3.HTTPProvider(f"http://127.0.0.1:{devnet['rpc']}", request_kwargs={"timeout": 60}))


def rpc(devnet, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{devnet['rpc']}", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        answer = json.loads(reply.read())
    assert "error" not in answer, answer
    return answer["result"]


def token_balance(w3, token, owner) -> int:
    data = "0x70a08231" + "00" * 12 + owner[2:].lower()
    return int(w3.eth.call({"to": token, "data": data}).hex(), 16)


@pytest.fixture
def wallet(run, home, devnet, tmp_path):
    return make_wallet(run, home, devnet, tmp_path)


def make_wallet(run, home, devnet, tmp_path):
    """A signer restored from the test mnemonic, its account exported as a PNG and imported by the watcher, the
    devnet named as the Ethereum node, 1 ETH and 5 ATT at address 0 (fresh amounts each test: the chain is shared)."""
    words = home.root / "words.txt"
    words.write_text(MNEMONIC + "\n")
    pw = home.root / "pw.txt"
    pw.write_text("pw-eth\n")
    run("airlock-signer", "restore", "--mnemonic-file", str(words), "--password-file", str(pw), *KDF, check=True)
    png = tmp_path / "account.png"
    run("airlock-signer", "export", "--chain", "eth", "--qr", str(png), "--password-file", str(pw), check=True)
    # The top-level `import` of the signer's account PNG goes to Ethereum: the image holds a ur:crypto-hdkey.
    imported = json.loads(
        run("airlock-watcher", "import", str(png), "--chain-id", str(devnet["chain_id"]), "--json", check=True).stdout
    )
    assert imported["addresses"][0]["address"] == ADDRESS0
    run("airlock-watcher", "node", "set", f"eth+http://127.0.0.1:{devnet['rpc']}", check=True)
    run("airlock-watcher", "token", "add", devnet["token"], check=True)

    def watcher(*args, check=True, input=None):
        # The top-level names of docs/architecture.md section 10: with only an Ethereum account in the data
        # directory, sync/balance/history/send/broadcast/token go to the `eth` group (ChainRouting).
        return run("airlock-watcher", *args, check=check, input=input)

    def signer(*args, check=True):
        return run("airlock-signer", *args, "--password-file", str(pw), check=check)

    return watcher, signer


def fund(devnet, wei: int, units: int):
    rpc(devnet, "dev_faucet", [ADDRESS0, hex(wei)])
    if units:
        rpc(devnet, "dev_mint", [ADDRESS0, hex(units)])


def balance_json(watcher) -> dict:
    watcher("sync")
    return json.loads(watcher("balance", "--json").stdout)


def pngs(path: Path) -> list[str]:
    found = sorted(str(p) for p in path.parent.glob(path.stem + "*.png"))
    assert found, f"no PNG written for {path}"
    return found


def send_sign_broadcast(watcher, signer, tmp_path, name, *send_args, wait=True):
    request = tmp_path / f"{name}-request.png"
    sent = json.loads(watcher("send", *send_args, "--qr", str(request), "--json").stdout)
    signature = tmp_path / f"{name}-signature.png"
    signer("sign", *pngs(request), "--yes", "--qr", str(signature))
    args = ["broadcast", *pngs(signature), "--json"] + (["--wait"] if wait else [])
    return sent, signature, watcher(*args, check=False)


def test_eth_round_trip_through_pngs_with_exact_balances(wallet, devnet, w3, tmp_path):
    watcher, signer = wallet
    before = w3.eth.get_balance(ADDRESS0)
    fund(devnet, 10**18, 5_000_000)
    shown = balance_json(watcher)
    assert int(shown["wei"]) == w3.eth.get_balance(ADDRESS0) == before + 10**18
    att = shown["tokens"][0]
    assert att["symbol"] == "ATT" and att["decimals"] == 6
    assert int(att["amount"]) == token_balance(w3, devnet["token"], ADDRESS0)

    # An amount without its unit is refused before anything is built (0.1 ETH and 0.1 gwei differ a billionfold).
    bare = watcher("send", "--to", RECIPIENT, "--amount", "0.1", check=False)
    assert bare.returncode == 1 and b"0.1eth" in bare.stderr, bare.stderr
    recipient_before = w3.eth.get_balance(RECIPIENT)
    sent, signature, proc = send_sign_broadcast(
        watcher, signer, tmp_path, "eth", "--to", RECIPIENT, "--amount", "0.1eth"
    )
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    assert result["status"] == "mined"
    receipt = w3.eth.get_transaction_receipt(result["hash"])
    assert receipt["status"] == 1
    assert int(result["fee_wei"]) == receipt["gasUsed"] * receipt["effectiveGasPrice"]
    assert w3.eth.get_balance(RECIPIENT) == recipient_before + 10**17
    shown = balance_json(watcher)
    assert int(shown["wei"]) == w3.eth.get_balance(ADDRESS0) == before + 10**18 - 10**17 - int(result["fee_wei"])

    # A second broadcast of the same signature is refused and sends nothing.
    again = watcher("broadcast", *pngs(signature), check=False)
    assert again.returncode == 2 and b"broadcast already" in again.stderr
    history = json.loads(watcher("history", "--json").stdout)
    assert [t["status"] for t in history["transactions"]] == ["mined"]


def test_erc20_round_trip_and_transfer_history(wallet, devnet, w3, tmp_path):
    watcher, signer = wallet
    fund(devnet, 10**18, 5_000_000)
    held = token_balance(w3, devnet["token"], ADDRESS0)
    other_before = token_balance(w3, devnet["token"], TOKEN_RECIPIENT)
    sent, _, proc = send_sign_broadcast(
        watcher, signer, tmp_path, "att", "--to", TOKEN_RECIPIENT, "--token", devnet["token"], "--amount", "1.5"
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["status"] == "mined"
    assert sent["token_amount"] == "1500000"
    assert token_balance(w3, devnet["token"], TOKEN_RECIPIENT) == other_before + 1_500_000
    shown = balance_json(watcher)
    assert int(shown["tokens"][0]["amount"]) == held - 1_500_000 == token_balance(w3, devnet["token"], ADDRESS0)
    # Transfers from Transfer logs (the node limits eth_getLogs to 3 blocks: the watcher splits the range).
    transfers = json.loads(watcher("history", "--json").stdout)["transfers"]
    assert any(t["to"] == TOKEN_RECIPIENT and t["amount"] == "1500000" for t in transfers)
    assert any(t["to"] == ADDRESS0 and t["amount"] == "5000000" for t in transfers)
    # Text output: exact decimals.
    text = watcher("balance").stdout.decode()
    assert f"{(held - 1_500_000) // 10**6}.{(held - 1_500_000) % 10**6:06d} ATT" in text


def test_reverted_transaction_is_failed_with_its_gas_spent(wallet, devnet, w3, tmp_path):
    watcher, signer = wallet
    fund(devnet, 10**18, 0)
    # The token contract has no payable default function: ETH sent to it reverts.
    _, _, proc = send_sign_broadcast(
        watcher, signer, tmp_path, "revert", "--to", devnet["token"], "--amount", "0.01eth", "--gas-limit", "60000"
    )
    assert proc.returncode == 5, proc.stderr.decode()
    result = json.loads(proc.stdout)
    receipt = w3.eth.get_transaction_receipt(result["hash"])
    assert receipt["status"] == 0
    assert result["status"] == "failed"
    assert result["gas_used"] == receipt["gasUsed"] > 21000
    assert int(result["fee_wei"]) == receipt["gasUsed"] * receipt["effectiveGasPrice"]


def test_signature_of_another_request_or_key_is_refused(wallet, devnet, tmp_path, vectors):
    watcher, signer = wallet
    fund(devnet, 10**18, 0)
    first = json.loads(watcher("send", "--to", RECIPIENT, "--amount", "0.01eth", "--json").stdout)
    request = cbor2.loads(ur_cbor(vectors, first["ur"]))
    sign_data = request[2]
    # Signed by another key (address 1 of the same seed) for the right request id: refused.
    other = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/1")
    signed = other.unsafe_sign_hash(keccak(sign_data))
    forged = r_s_v(signed)
    text = ur_text(vectors, "eth-signature", cbor2.dumps({1: request[1], 2: forged}))
    proc = watcher("broadcast", "-", input=text, check=False)
    assert proc.returncode == 2 and b"not by the sender" in proc.stderr
    # The right key, but the id of a request this watcher never made: refused.
    mine = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0").unsafe_sign_hash(keccak(sign_data))
    text = ur_text(vectors, "eth-signature", cbor2.dumps({1: cbor2.CBORTag(37, b"\x11" * 16), 2: r_s_v(mine)}))
    proc = watcher("broadcast", "-", input=text, check=False)
    assert proc.returncode == 2 and b"did not make" in proc.stderr
    # Control: the right key and id.
    text = ur_text(vectors, "eth-signature", cbor2.dumps({1: request[1], 2: r_s_v(mine)}))
    proc = watcher("broadcast", "-", "--wait", "--json", input=text, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["status"] == "mined"


def r_s_v(signed) -> bytes:
    return (
        signed.r.to_bytes(32, "big")
        + signed.s.to_bytes(32, "big")
        + bytes([signed.v - 27 if signed.v >= 27 else signed.v])
    )


def test_request_signed_by_eth_account_is_broadcast(wallet, devnet, w3, vectors):
    """eth-account as a second signer: it decodes the watcher's unsigned EIP-1559 transaction, signs it, and the
    watcher broadcasts its signature; its own signed raw transaction hashes to what the chain mined."""
    watcher, _ = wallet
    fund(devnet, 10**18, 0)
    sent = json.loads(watcher("send", "--to", RECIPIENT, "--amount", "0.02eth", "--json").stdout)
    request = cbor2.loads(ur_cbor(vectors, sent["ur"]))
    assert request[3] == 4 and request[4] == devnet["chain_id"] and request[6] == bytes.fromhex(ADDRESS0[2:])
    data = request[2]
    assert data[0] == 2
    chain_id, nonce, tip, cap, gas, to, value, calldata, access = rlp.decode(data[1:])
    tx = {
        "type": 2,
        "chainId": int.from_bytes(chain_id, "big"),
        "nonce": int.from_bytes(nonce, "big"),
        "maxPriorityFeePerGas": int.from_bytes(tip, "big"),
        "maxFeePerGas": int.from_bytes(cap, "big"),
        "gas": int.from_bytes(gas, "big"),
        "to": to_checksum_address(to),
        "value": int.from_bytes(value, "big"),
        "data": calldata,
        "accessList": [],
    }
    assert tx["value"] == 2 * 10**16 and tx["to"] == RECIPIENT
    account = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    signed = account.sign_transaction(tx)
    rsv = signed.r.to_bytes(32, "big") + signed.s.to_bytes(32, "big") + bytes([signed.v])
    text = ur_text(vectors, "eth-signature", cbor2.dumps({1: request[1], 2: rsv, 3: "eth-account"}))
    proc = watcher("broadcast", "-", "--wait", "--json", input=text, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    assert result["hash"] == "0x" + keccak(signed.raw_transaction).hex()
    assert result["status"] == "mined"


class Liar(BaseHTTPRequestHandler):
    """Forwards JSON-RPC to the devnet and breaks the answers as `mode` says."""

    upstream = ""
    mode = ""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.mode == "http500":
            return self.reply(500, b"Internal Server Error")
        if self.mode == "timeout":
            time.sleep(6)
            return self.reply(200, b"{}")
        request = urllib.request.Request(self.upstream, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            reply = json.loads(answer.read())
        requests = json.loads(body)
        pairs = zip(requests, reply) if isinstance(requests, list) else [(requests, reply)]
        for req, rep in pairs:
            method = req.get("method")
            if self.mode == "chain" and method == "eth_chainId":
                rep["result"] = "0x1"
            if self.mode == "hex" and method == "eth_getBalance":
                rep["result"] = "0x0" + rep["result"][2:]
            if self.mode == "overflow" and method == "eth_getBalance":
                rep["result"] = "0x1" + "0" * 64
        self.reply(200, json.dumps(reply).encode())

    def reply(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.parametrize("mode", ["chain", "hex", "overflow", "http500", "timeout"])
def test_lying_or_broken_node_exits_5_or_2_and_changes_nothing(wallet, devnet, home, mode):
    watcher, _ = wallet
    fund(devnet, 10**18, 1_000_000)
    balance_json(watcher)
    database = Path(home.data_dir) / "wallet.sqlite"
    before = (watcher("balance", "--json").stdout, watcher("history", "--json").stdout)
    fund(devnet, 10**17, 7)  # the chain moves: a sync that went through would change the balance

    handler = type("Handler", (Liar,), {"upstream": f"http://127.0.0.1:{devnet['rpc']}", "mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        watcher("node", "set", f"eth+http://127.0.0.1:{server.server_address[1]}", check=False)
        home.env["AIRLOCK_NODE_TIMEOUT"] = "2"
        proc = watcher("sync", "--json", check=False)
    finally:
        server.shutdown()
        home.env.pop("AIRLOCK_NODE_TIMEOUT")
    # A node on another chain id is refused as such (exit 2, naming --chain-id), not as a broken node (exit 5).
    expected = 2 if mode == "chain" else 5
    assert proc.returncode == expected, (proc.stdout, proc.stderr)
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == expected and error["message"]
    if mode == "chain":
        assert "--chain-id" in error["message"]
    assert (watcher("balance", "--json").stdout, watcher("history", "--json").stdout) == before
    assert database.exists()
    # Control: the honest node syncs the new balance.
    watcher("node", "set", f"eth+http://127.0.0.1:{devnet['rpc']}", check=False)
    assert balance_json(watcher)["wei"] != json.loads(before[0])["wei"]


def test_bump_replaces_a_pending_transaction(run, home, manual_devnet, tmp_path):
    devnet = manual_devnet
    watcher, signer = make_wallet(run, home, devnet, tmp_path)
    rpc(devnet, "dev_faucet", [ADDRESS0, hex(10**18)])
    rpc(devnet, "dev_mine", ["0x1"])
    watcher("sync")
    recipient = to_checksum_address("0x" + "37" * 20)
    before = int(rpc(devnet, "eth_getBalance", [recipient, "latest"]), 16)
    sent, _, proc = send_sign_broadcast(
        watcher, signer, tmp_path, "slow", "--to", recipient, "--amount", "0.05eth", wait=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    first = json.loads(proc.stdout)
    assert first["status"] == "pending"
    bump_png = tmp_path / "bump-request.png"
    bumped = json.loads(watcher("bump", first["hash"], "--qr", str(bump_png), "--json").stdout)
    assert bumped["nonce"] == sent["nonce"]
    assert int(bumped["max_fee_per_gas"]) * 8 >= int(sent["max_fee_per_gas"]) * 9
    assert int(bumped["max_priority_fee_per_gas"]) * 8 >= int(sent["max_priority_fee_per_gas"]) * 9
    signature = tmp_path / "bump-signature.png"
    signer("sign", *pngs(bump_png), "--yes", "--qr", str(signature))
    proc = watcher("broadcast", *pngs(signature), "--json", check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    second = json.loads(proc.stdout)
    rpc(devnet, "dev_mine", ["0x1"])
    watcher("sync")
    statuses = {t["hash"]: t["status"] for t in json.loads(watcher("history", "--json").stdout)["transactions"]}
    assert statuses == {second["hash"]: "mined", first["hash"]: "replaced"}
    # Paid once.
    assert int(rpc(devnet, "eth_getBalance", [recipient, "latest"]), 16) == before + 5 * 10**16
