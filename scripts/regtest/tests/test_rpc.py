"""The node's Bitcoin Core JSON-RPC: methods, Core's error codes, HTTP auth, the bitcoin-cli-like client."""

from __future__ import annotations

import base64
import http.client
import json
import os

import pytest
from embit import bip32, ec
from embit import script as escript
from embit.networks import NETWORKS

from regtest.cli import RpcCallError
from regtest.testing import FAUCET_ADDRESS

NET = NETWORKS["regtest"]


def _err(node, method, *args) -> RpcCallError:
    with pytest.raises(RpcCallError) as info:
        node.cli(method, *args)
    return info.value


def _http(node, body: bytes, auth: str | None = None) -> tuple[int, bytes]:
    cookie = open(node.cookie).read().strip()
    conn = http.client.HTTPConnection("127.0.0.1", node.rpc_port, timeout=30)
    headers = {"Authorization": "Basic " + base64.b64encode((auth or cookie).encode()).decode()}
    conn.request("POST", "/", body, headers)
    resp = conn.getresponse()
    out = resp.status, resp.read()
    conn.close()
    return out


def test_chain_queries(regtest_node):
    node = regtest_node
    node.mine(2)
    info = node.cli("getblockchaininfo")
    assert info["chain"] == "regtest" and info["blocks"] == node.height() == info["headers"]
    best = node.cli("getbestblockhash")
    assert info["bestblockhash"] == best == node.cli("getblockhash", node.height())
    hdr = node.cli("getblockheader", best)
    assert hdr["height"] == node.height() and hdr["confirmations"] == 1 and hdr["bits"] == "207fffff"
    assert "nextblockhash" not in hdr
    prev = node.cli("getblockheader", hdr["previousblockhash"])
    assert prev["nextblockhash"] == best and prev["confirmations"] == 2
    raw_header = node.cli("getblockheader", best, False)
    assert len(raw_header) == 160
    raw = node.cli("getblock", best, 0)
    assert raw.startswith(raw_header)
    b1 = node.cli("getblock", best)
    b2 = node.cli("getblock", best, 2)
    assert b1["tx"] == [t["txid"] for t in b2["tx"]]
    assert b1["size"] == len(raw) // 2
    coinbase = b2["tx"][0]
    assert "coinbase" in coinbase["vin"][0]
    # BIP34: the coinbase starts with a push of the height.
    cb_script = bytes.fromhex(coinbase["vin"][0]["coinbase"])
    h = node.height()
    assert cb_script[0] == (0x50 + h if h <= 16 else (h.bit_length() + 8) // 8)
    # The witness commitment output.
    assert any(o["scriptPubKey"]["hex"].startswith("6a24aa21a9ed") for o in coinbase["vout"])
    assert node.cli("getblockcount") == node.height()
    assert node.cli("getblockhash", 0) == "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"


def test_core_error_codes(regtest_node):
    node = regtest_node
    assert (e := _err(node, "getblockhash", 10**6)).code == -8 and e.message == "Block height out of range"
    assert _err(node, "getblockhash", "x").code == -3
    assert (e := _err(node, "getblockheader", "00" * 32)).code == -5 and e.message == "Block not found"
    assert _err(node, "getblock", "zz").code == -8
    e = _err(node, "getrawtransaction", "11" * 32)
    assert e.code == -5 and e.message.startswith("No such mempool or blockchain transaction")
    assert (e := _err(node, "sendrawtransaction", "00")).code == -22
    assert (e := _err(node, "generatetoaddress", 1, "notanaddress")).code == -5
    assert e.message == "Error: Invalid address"
    assert _err(node, "generatetoaddress", 1, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4").code == -5  # mainnet
    assert (e := _err(node, "nosuchmethod")).code == -32601 and e.message == "Method not found"
    assert _err(node, "estimatesmartfee", 0).code == -8
    assert _err(node, "getblockcount", 1).code == -1


def test_http_layer(regtest_node):
    node = regtest_node
    status, body = _http(node, b'{"method": "getblockcount", "params": [], "id": 7}')
    assert status == 200 and json.loads(body) == {"result": node.height(), "error": None, "id": 7}
    status, _ = _http(node, b'{"method": "getblockcount"}', auth="__cookie__:wrong")
    assert status == 401
    status, body = _http(node, b'{"method": "nosuch", "id": 1}')
    assert status == 404 and json.loads(body)["error"]["code"] == -32601
    status, body = _http(node, b'{"method": "getblockhash", "params": [-1], "id": 1}')
    assert status == 500 and json.loads(body)["error"]["code"] == -8
    status, body = _http(node, b'{"jsonrpc": "2.0", "method": "getblockhash", "params": [-1], "id": 1}')
    assert status == 200 and json.loads(body)["error"]["code"] == -8 and "result" not in json.loads(body)
    status, body = _http(node, b"{not json")
    assert status == 500 and json.loads(body)["error"]["code"] == -32700
    status, body = _http(node, b'[{"method": "getblockcount", "id": 1}, {"method": "nosuch", "id": 2}, 5]')
    replies = json.loads(body)
    assert status == 200 and replies[0]["result"] == node.height() and replies[1]["error"]["code"] == -32601
    assert replies[2]["error"]["code"] == -32600
    status, body = _http(
        node,
        b'{"method": "getblockheader", "params": {"blockhash": "%s", "verbose": false},'
        b' "id": 3}' % node.cli("getbestblockhash").encode(),
    )
    assert status == 200 and len(json.loads(body)["result"]) == 160
    assert node.cli("getblockcount") == node.height()  # still serving


def test_mempool_and_fee_rpcs(regtest_node):
    node = regtest_node
    node.mine(1)
    assert node.cli("getmempoolinfo")["size"] == 0
    assert node.cli("estimatesmartfee", 6) == {"feerate": 0.00001, "blocks": 6}
    addr = escript.p2wpkh(ec.PrivateKey(os.urandom(32)).get_public_key()).address(NET)
    txid = node.send_to(addr, 30_000, fee_rate=5)
    info = node.cli("getmempoolinfo")
    assert info["size"] == 1 and info["minrelaytxfee"] == 0.00001 and info["loaded"] is True
    assert node.cli("getrawmempool") == [txid]
    assert node.cli("estimatesmartfee", 1)["feerate"] > 0.00001
    tx = node.cli("getrawtransaction", txid, True)
    assert "confirmations" not in tx and tx["txid"] == txid
    assert tx["vout"][0]["scriptPubKey"]["address"] == addr and tx["vout"][0]["value"] == 0.0003
    assert tx["vout"][0]["scriptPubKey"]["type"] == "witness_v0_keyhash"
    node.mine(1)
    tx2 = node.cli("getrawtransaction", txid, 2, node.cli("getbestblockhash"))
    assert tx2["in_active_chain"] is True and tx2["confirmations"] == 1 and tx2["fee"] > 0


def test_descriptors_scantxoutset_and_generate(regtest_node):
    node = regtest_node
    root = bip32.HDKey.from_seed(os.urandom(32), version=NET["xprv"])
    tpub = root.derive("m/84h/1h/0h").to_public().to_base58(version=NET["xpub"])
    key5 = root.derive("m/84h/1h/0h/0/5").key
    addr5 = escript.p2wpkh(key5).address(NET)
    node.send_to(addr5, 44_000)
    node.mine(1)
    res = node.cli("scantxoutset", "start", [{"desc": f"wpkh({tpub}/0/*)", "range": 10}])
    assert res["success"] and res["total_amount"] == 0.00044 and len(res["unspents"]) == 1
    u = res["unspents"][0]
    assert u["vout"] == 0 and u["coinbase"] is False and u["height"] == node.height()
    assert u["scriptPubKey"] == escript.p2wpkh(key5).data.hex()
    assert node.cli("scantxoutset", "start", [{"desc": f"wpkh({tpub}/0/*)", "range": [6, 10]}])["unspents"] == []
    assert node.cli("scantxoutset", "start", [f"addr({addr5})"])["total_amount"] == 0.00044
    assert node.cli("scantxoutset", "status") is None
    assert node.cli("scantxoutset", "abort") is False
    assert _err(node, "scantxoutset", "start", ["wpkh(nonsense)"]).code == -5
    # generatetodescriptor: the coinbase pays the descriptor's script.
    desc = f"wpkh({key5.sec().hex()})"
    h = node.cli("generatetodescriptor", 1, desc)[0]
    assert node.cli("getblock", h, 2)["tx"][0]["vout"][0]["scriptPubKey"]["address"] == addr5
    assert _err(node, "generatetodescriptor", 1, f"wpkh({tpub}/0/*)").code == -8
    # generateblock: an empty block to an address, and a not-submitted one.
    height = node.height()
    out = node.cli("generateblock", FAUCET_ADDRESS, [])
    assert node.cli("getbestblockhash") == out["hash"] and node.height() == height + 1
    out = node.cli("generateblock", FAUCET_ADDRESS, [], False)
    assert "hex" in out and node.height() == height + 1
    assert _err(node, "generateblock", FAUCET_ADDRESS, ["ab" * 32]).code == -5


def test_cli_behaves_like_bitcoin_cli(regtest_node):
    node = regtest_node
    p = node.cli_process("getblockcount")
    assert p.returncode == 0 and p.stdout.strip() == str(node.height())
    p = node.cli_process("getblockhash", "0")
    assert p.stdout.strip() == "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
    p = node.cli_process("getblock", p.stdout.strip(), "1")
    assert json.loads(p.stdout)["height"] == 0
    p = node.cli_process("getblockhash", "99999999")
    assert p.returncode == 8 and p.stderr == "error code: -8\nerror message:\nBlock height out of range\n"
    p = node.cli_process("generatetoaddress", "2", FAUCET_ADDRESS)
    assert p.returncode == 0 and len(json.loads(p.stdout)) == 2
