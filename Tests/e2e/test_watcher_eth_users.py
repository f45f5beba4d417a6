"""Ethereum for a user of the watcher (issue 27) against the devnet, with both executables as a user runs them:
`wallets` lists and `wallets delete` removes Ethereum accounts, `node show` / `node test` include the Ethereum node,
`send --token ATT` works by symbol, history shows token units and symbols, a token send above the balance is exit 2
with the contract's own reason (decoded from the revert), and `inspect` shows eth-sign-requests and eth-signatures on
both sides (the signer's needs no vault), checked against the request's own CBOR and RLP decoded by the peers cbor2 and rlp."""

from __future__ import annotations

import json
import re
import uuid

import cbor2
import rlp
from eth_utils import to_checksum_address
from test_eth_signer import ur_cbor, ur_text
from test_watcher_eth import ADDRESS0, TOKEN_RECIPIENT, devnet, fund, make_wallet, pngs, w3  # noqa: F401

HEX_RUN = re.compile(r"[0-9a-fA-F]{65,}")


def jout(proc):
    return json.loads(proc.stdout)


def test_wallets_and_nodes_include_ethereum(run, home, devnet, tmp_path):  # noqa: F811
    watcher, _ = make_wallet(run, home, devnet, tmp_path)
    listed = jout(watcher("wallets", "--json"))
    assert listed == [{"name": "eth", "chain": "ethereum", "chain_id": devnet["chain_id"], "addresses": [ADDRESS0]}]
    text = watcher("wallets").stdout.decode()
    assert f"eth\tethereum chain {devnet['chain_id']}\t{ADDRESS0}" in text
    # node show / node test: the Ethereum node, with and without --chain eth; no Bitcoin node is set.
    url = f"eth+http://127.0.0.1:{devnet['rpc']}"
    shown = jout(watcher("node", "show", "--json"))
    assert shown == {"url": None, "proxy": None, "ethereum": {"url": url, "proxy": None}}
    assert watcher("node", "show").stdout.decode() == f"ethereum: {url}\n"
    assert jout(watcher("node", "show", "--chain", "eth", "--json"))["ethereum"]["url"] == url
    assert watcher("node", "show", "--chain", "btc", check=False).returncode == 1
    tested = jout(watcher("node", "test", "--json"))
    assert tested["ethereum"]["chain_id"] == devnet["chain_id"] and tested["ethereum"]["block"] >= 0
    assert tested["backend"] is None and tested["warnings"] == []
    line = watcher("node", "test", "--chain", "eth").stdout.decode()
    assert f"Ethereum chain id {devnet['chain_id']}" in line
    # wallets delete removes the account (and its tokens); the control: it was there, and a name not known is exit 2.
    assert watcher("wallets", "delete", "nobody", "--yes", check=False).returncode == 2
    deleted = jout(watcher("wallets", "delete", "eth", "--yes", "--json"))
    assert deleted["deleted"] == "eth" and deleted["chain"] == "ethereum"
    assert jout(watcher("wallets", "--json")) == []
    assert watcher("eth", "balance", check=False).returncode == 2


def test_token_by_symbol_units_in_history_and_revert_reason(run, home, devnet, w3, tmp_path):  # noqa: F811
    watcher, signer = make_wallet(run, home, devnet, tmp_path)
    fund(devnet, 10**18, 3_000_000)  # 3 ATT (6 decimals)
    watcher("sync")
    held = jout(watcher("balance", "--json"))["tokens"][0]["amount"]
    # --token ATT: the symbol of a followed token (any case) names its contract.
    request = tmp_path / "att.png"
    sent = jout(watcher("send", "--to", TOKEN_RECIPIENT, "--token", "att", "--amount", "1.25", "--qr", str(request),
                        "--json"))  # fmt: skip
    assert sent["token"] == to_checksum_address(devnet["token"]) and sent["token_amount"] == "1250000"
    signature = tmp_path / "att-signature.png"
    signer("sign", *pngs(request), "--yes", "--qr", str(signature))
    assert watcher("broadcast", *pngs(signature), "--wait").returncode == 0
    watcher("sync")
    history = watcher("history").stdout.decode()
    assert "1.250000 ATT to" in history, history  # every decimal of the token, as balance shows it
    assert "base units" not in history and devnet["token"].lower() not in history.lower()
    transfers = jout(watcher("history", "--json"))["transfers"]
    assert {t["symbol"] for t in transfers} == {"ATT"}
    # A token the account does not follow, by symbol: exit 2 naming the ones it follows.
    proc = watcher("send", "--to", TOKEN_RECIPIENT, "--token", "DAI", "--amount", "1", check=False)
    assert proc.returncode == 2 and b"follows ATT" in proc.stderr
    # More than the balance: the node's estimate reverts; exit 2 with the contract's reason, no revert bytes.
    too_much = str(int(held) // 10**6 + 100)
    proc = watcher("send", "--to", TOKEN_RECIPIENT, "--token", "ATT", "--amount", too_much, "--json", check=False)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    message = jout(proc)["error"]["message"]
    assert "balance too low" in message and "would fail" in message
    assert not HEX_RUN.search(message) and "\\x" not in message
    # Control: within the balance the same send is built.
    assert watcher("send", "--to", TOKEN_RECIPIENT, "--token", "ATT", "--amount", "0.5", "--json").returncode == 0


def test_inspect_shows_eth_requests_and_signatures_on_both_sides(run, home, devnet, tmp_path, vectors):  # noqa: F811
    watcher, signer = make_wallet(run, home, devnet, tmp_path)
    fund(devnet, 10**18, 2_000_000)
    watcher("sync")
    request_png = tmp_path / "request.png"
    sent = jout(watcher("send", "--to", TOKEN_RECIPIENT, "--token", "ATT", "--amount", "1.5", "--qr",
                        str(request_png), "--json"))  # fmt: skip
    # The same request decoded by hand from its CBOR (the peers cbor2 and rlp) for the expected values.
    request = cbor2.loads(ur_cbor(vectors, sent["ur"]))
    chain_id, nonce, tip, cap, gas, to, value, calldata, _ = rlp.decode(request[2][1:])
    request_id = request[1].hex if isinstance(request[1], uuid.UUID) else request[1].value.hex()
    for side in (("airlock-watcher", "inspect"), ("airlock-signer", "inspect")):
        report = jout(run(*side, *pngs(request_png), "--json", check=True))
        assert report["type"] == "eth-sign-request"
        assert report["request_id"] == request_id == sent["request_id"]
        assert report["chain_id"] == devnet["chain_id"] == int.from_bytes(chain_id, "big")
        assert report["address"] == ADDRESS0 and report["path"] == "m/44'/60'/0'/0/0"
        tx = report["transaction"]
        assert tx["to"] == to_checksum_address(to) == to_checksum_address(devnet["token"])
        assert tx["nonce"] == int.from_bytes(nonce, "big") and tx["gas_limit"] == int.from_bytes(gas, "big")
        assert tx["max_fee_per_gas"] == str(int.from_bytes(cap, "big"))
        assert tx["max_priority_fee_per_gas"] == str(int.from_bytes(tip, "big"))
        assert tx["value"] == str(int.from_bytes(value, "big")) == "0"
        assert tx["call"] == {
            "function": "transfer",
            "from": None,
            "to": TOKEN_RECIPIENT,
            "spender": None,
            "amount": "1500000",
            "unlimited": False,
        }
        assert calldata[:4].hex() == "a9059cbb"
        text = run(*side, *pngs(request_png), check=True).stdout.decode()
        assert f"Ethereum sign request: {request_id}" in text and "transfer 1500000 base units" in text
    # The signer's answer: an eth-signature, shown with its request id and r, s, v.
    signature_png = tmp_path / "signature.png"
    signer("sign", *pngs(request_png), "--yes", "--qr", str(signature_png))
    for side in (("airlock-watcher", "inspect"), ("airlock-signer", "inspect")):
        report = jout(run(*side, *pngs(signature_png), "--json", check=True))
        assert report["type"] == "eth-signature" and report["request_id"] == request_id
        assert len(report["r"]) == 64 and len(report["s"]) == 64 and report["v"] in ("0", "1")
    # A personal message request, built by hand, shows its text; the control: garbage is exit 2.
    path = cbor2.CBORTag(304, {1: [44, True, 60, True, 0, True, 0, False, 0, False]})
    fields = {1: cbor2.CBORTag(37, bytes(16)), 2: "hello \u202e world".encode(), 3: 3, 4: 1, 5: path}
    message = cbor2.dumps(fields)
    text = ur_text(vectors, "eth-sign-request", message)
    report = jout(run("airlock-signer", "inspect", "-", "--json", input=text, check=True))
    assert report["data_type"] == "personal-message" and report["message"]["text"] == "hello \\u202e world"
    assert report["hidden_characters"] is True
    assert run("airlock-signer", "inspect", "-", input="ur:eth-sign-request/garbage").returncode == 2
