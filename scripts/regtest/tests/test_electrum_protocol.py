"""The node's Electrum protocol 1.4 server: methods, batches, notifications, and robustness against bad clients."""

from __future__ import annotations

import hashlib
import json
import os
import socket

import pytest
from embit import ec
from embit import script as escript
from embit.networks import NETWORKS

from regtest.testing import ElectrumConnection, ElectrumRequestError, scripthash

NET = NETWORKS["regtest"]


def _dsha(b: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def _fresh_address() -> tuple[str, bytes]:
    spk = escript.p2wpkh(ec.PrivateKey(os.urandom(32)).get_public_key())
    return spk.address(NET), spk.data


def test_server_methods(regtest_node):
    node = regtest_node
    with node.electrum() as e:
        assert e.call("server.version", "pytest", "1.4") == ["AirlockRegtest 0.1", "1.4"]
        assert e.call("server.version", "pytest", ["1.2", "1.4"])[1] == "1.4"
        features = e.call("server.features")
        assert features["genesis_hash"] == node.cli("getblockhash", 0)
        assert (features["protocol_min"], features["protocol_max"], features["hash_function"]) == (
            "1.4",
            "1.4",
            "sha256",
        )
        assert e.call("server.ping") is None
        assert e.call("blockchain.relayfee") == 0.00001
        assert e.call("blockchain.estimatefee", 2) >= 0.00001
        assert isinstance(e.call("mempool.get_fee_histogram"), list)
        with pytest.raises(ElectrumRequestError):
            e.call("server.version", "pytest", "2.0")


def test_headers_and_merkle_proofs_check_out(regtest_node):
    node = regtest_node
    addr, spk = _fresh_address()
    txid = node.send_to(addr, 75_000)
    node.mine(1)
    height = node.height()
    with node.electrum() as e:
        tip = e.call("blockchain.headers.subscribe")
        assert tip["height"] == height
        header = bytes.fromhex(tip["hex"])
        assert _dsha(header)[::-1].hex() == node.cli("getbestblockhash")
        assert e.call("blockchain.block.header", height) == tip["hex"]
        chunk = e.call("blockchain.block.headers", height - 2, 5)
        assert chunk["count"] == 3 and chunk["max"] == 2016
        assert bytes.fromhex(chunk["hex"])[-80:] == header
        for i in range(1, 3):  # each header links to the previous one
            h = bytes.fromhex(chunk["hex"])[80 * i : 80 * i + 80]
            assert h[4:36] == _dsha(bytes.fromhex(chunk["hex"])[80 * (i - 1) : 80 * i])
        proof = e.call("blockchain.transaction.get_merkle", txid, height)
        assert proof["block_height"] == height
        h, pos = bytes.fromhex(txid)[::-1], proof["pos"]
        for sibling in proof["merkle"]:
            s = bytes.fromhex(sibling)[::-1]
            h = _dsha(s + h) if pos & 1 else _dsha(h + s)
            pos >>= 1
        assert h == header[36:68]  # the merkle root in the header
        assert e.call("blockchain.transaction.id_from_pos", height, proof["pos"]) == txid
        # Checkpoint proofs: header `height - 1` against the merkle root of headers 0..height.
        cp = e.call("blockchain.block.header", height - 1, height)
        leaf, idx = _dsha(bytes.fromhex(cp["header"])), height - 1
        for sibling in cp["branch"]:
            s = bytes.fromhex(sibling)[::-1]
            leaf = _dsha(s + leaf) if idx & 1 else _dsha(leaf + s)
            idx >>= 1
        assert leaf[::-1].hex() == cp["root"]
        raw = e.call("blockchain.transaction.get", txid)
        assert raw == node.cli("getrawtransaction", txid)
        verbose = e.call("blockchain.transaction.get", txid, True)
        assert verbose["txid"] == txid and verbose["confirmations"] == 1 and verbose["hex"] == raw
        with pytest.raises(ElectrumRequestError):
            e.call("blockchain.transaction.get_merkle", txid, height - 1)
        with pytest.raises(ElectrumRequestError):
            e.call("blockchain.block.header", height + 1)


def test_scripthash_methods_and_notifications(regtest_node):
    node = regtest_node
    addr, spk = _fresh_address()
    sh = scripthash(spk)
    with node.electrum() as e:
        assert e.call("blockchain.scripthash.subscribe", sh) is None
        e.call("blockchain.headers.subscribe")
        assert e.call("blockchain.scripthash.get_history", sh) == []
        txid = node.send_to(addr, 120_000)
        note = e.wait_notification("blockchain.scripthash.subscribe")
        history = e.call("blockchain.scripthash.get_history", sh)
        assert history == [{"tx_hash": txid, "height": 0, "fee": history[0]["fee"]}]
        expected = hashlib.sha256(f"{txid}:0:".encode()).hexdigest()
        assert note["params"] == [sh, expected]
        assert e.call("blockchain.scripthash.get_balance", sh) == {"confirmed": 0, "unconfirmed": 120_000}
        assert e.call("blockchain.scripthash.get_mempool", sh) == history
        assert e.call("blockchain.scripthash.listunspent", sh) == [
            {"tx_pos": 0, "value": 120_000, "tx_hash": txid, "height": 0}
        ]
        node.mine(1)
        height = node.height()
        assert e.wait_notification("blockchain.headers.subscribe")["params"][0]["height"] == height
        note = e.wait_notification("blockchain.scripthash.subscribe")
        assert note["params"] == [sh, hashlib.sha256(f"{txid}:{height}:".encode()).hexdigest()]
        assert e.call("blockchain.scripthash.get_history", sh) == [{"height": height, "tx_hash": txid}]
        assert e.call("blockchain.scripthash.get_balance", sh) == {"confirmed": 120_000, "unconfirmed": 0}
        assert e.call("blockchain.scripthash.get_mempool", sh) == []
        assert e.call("blockchain.scripthash.listunspent", sh) == [
            {"tx_pos": 0, "value": 120_000, "tx_hash": txid, "height": height}
        ]
        assert e.call("blockchain.scripthash.unsubscribe", sh) is True


def test_batches_and_broadcast(regtest_node):
    node = regtest_node
    addr, spk = _fresh_address()
    with node.electrum() as e:
        e.send_raw(
            (
                json.dumps(
                    [
                        {"jsonrpc": "2.0", "id": 1, "method": "server.ping", "params": []},
                        {
                            "jsonrpc": "2.0",
                            "id": 2,
                            "method": "blockchain.scripthash.get_balance",
                            "params": [scripthash(spk)],
                        },
                        {"jsonrpc": "2.0", "id": 3, "method": "no.such.method", "params": []},
                        {"jsonrpc": "2.0", "id": 4, "method": "blockchain.block.header", "params": ["x"]},
                    ]
                )
                + "\n"
            ).encode()
        )
        replies = {r["id"]: r for r in e.read_message()}
        assert replies[1]["result"] is None
        assert replies[2]["result"] == {"confirmed": 0, "unconfirmed": 0}
        assert replies[3]["error"]["code"] == -32601
        assert "error" in replies[4]
        # Broadcast: a raw transaction the node accepts returns its txid.
        txid = node.send_to(addr, 10_000)
        raw = node.cli("getrawtransaction", txid)
        assert e.call("blockchain.transaction.broadcast", raw) == txid  # already in the mempool: same answer
        with pytest.raises(ElectrumRequestError) as info:
            e.call("blockchain.transaction.broadcast", "0200")
        assert "rejected" in info.value.message


def test_malformed_lines_and_unknown_methods_get_errors_and_the_server_keeps_serving(regtest_node):
    node = regtest_node
    with node.electrum() as e:
        for line in [b"this is not json\n", b'{"id": 1, "method": \n', b"\xff\xfe\x00garbage\n"]:
            e.send_raw(line)
            reply = e.read_message()
            assert reply["error"]["code"] == -32700 and reply["id"] is None
        e.send_raw(b"[]\n")
        assert e.read_message()["error"]["code"] == -32600
        e.send_raw(b"42\n")
        assert e.read_message()["error"]["code"] == -32600
        assert e.request("no.such.method")["error"]["code"] == -32601
        assert e.request("blockchain.scripthash.get_balance", "nothex")["error"]["code"] == 1
        assert e.request("blockchain.scripthash.get_balance")["error"]["code"] == 1
        assert e.request("blockchain.block.header", 1, 2, 3, 4)["error"]["code"] == -32602
        assert e.call("server.ping") is None  # the same connection still works


def test_a_client_that_disconnects_mid_batch_only_loses_its_own_session(regtest_node):
    node = regtest_node
    with node.electrum() as other:
        other.call("blockchain.headers.subscribe")
        # A client sends half a batch and goes away; another sends a big batch and closes without reading.
        s = socket.create_connection(("127.0.0.1", node.electrum_port))
        s.sendall(b'[{"jsonrpc": "2.0", "id": 1, "method": "server.ping"}, {"jsonrpc": "2.0", "id": 2, "met')
        s.close()
        s = socket.create_connection(("127.0.0.1", node.electrum_port))
        batch = [
            {"jsonrpc": "2.0", "id": i, "method": "blockchain.block.headers", "params": [0, 2016]} for i in range(50)
        ]
        s.sendall((json.dumps(batch) + "\n").encode())
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # reset on close
        s.close()
        # An over-long line without a newline: the server drops that client.
        s = socket.create_connection(("127.0.0.1", node.electrum_port))
        try:
            s.sendall(b"[" * (17 * 1024 * 1024))
            s.settimeout(30)
            assert s.recv(100) == b""
        except (ConnectionResetError, BrokenPipeError):
            pass
        finally:
            s.close()
        # The server still answers the other client, and new ones, and still notifies.
        assert other.call("server.ping") is None
        with ElectrumConnection(node.electrum_port) as fresh:
            assert fresh.call("blockchain.headers.subscribe")["height"] == node.height()
        node.mine(1)
        assert other.wait_notification("blockchain.headers.subscribe")["params"][0]["height"] == node.height()
