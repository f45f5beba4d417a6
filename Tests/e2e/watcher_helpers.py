"""Helpers for the airlock-watcher end-to-end tests: accounts made with embit from fresh mnemonics, a lying Electrum
proxy, and an Esplora REST adapter over the regtest node.

The lying proxy and the Esplora adapter are test servers written here, on loopback: the proxy is a real TCP proxy in
front of the real regtest Electrum server that alters what it forwards; the Esplora adapter answers the Esplora REST
API from the regtest node's own Electrum and RPC answers, because no Esplora server runs on this machine.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from embit import bip32, bip39
from embit.descriptor import Descriptor
from embit.descriptor.checksum import add_checksum
from embit.networks import NETWORKS

NET = NETWORKS["regtest"]


@dataclass
class TestAccount:
    """A watch-only account: its multipath descriptor and embit descriptors of each branch to derive addresses."""

    descriptor: str
    receive: Descriptor
    change: Descriptor

    def address(self, index: int, change: bool = False) -> str:
        return (self.change if change else self.receive).derive(index).address(NET)


def _key(path: str) -> str:
    """A fresh random seed's `[fp/path]tpub` at `path` (h-notation)."""
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(bip39.mnemonic_from_bytes(os.urandom(16))), version=NET["xprv"])
    xpub = root.derive("m/" + path).to_public()
    return f"[{root.my_fingerprint.hex()}/{path}]{xpub.to_base58(version=NET['xpub'])}"


def make_account(kind: str) -> TestAccount:
    """`wpkh`, `tr` or `wsh-multi` (2-of-3 sortedmulti) from fresh mnemonics."""
    if kind == "wpkh":
        template = "wpkh(" + _key("84h/1h/0h") + "/{b})"
    elif kind == "tr":
        template = "tr(" + _key("86h/1h/0h") + "/{b})"
    elif kind == "wsh-multi":
        keys = [_key("48h/1h/0h/2h") for _ in range(3)]
        template = "wsh(sortedmulti(2," + ",".join(k + "/{b}" for k in keys) + "))"
    else:
        raise ValueError(kind)
    return TestAccount(
        descriptor=add_checksum(template.replace("{b}", "<0;1>/*")),
        receive=Descriptor.from_string(template.replace("{b}", "0/*")),
        change=Descriptor.from_string(template.replace("{b}", "1/*")),
    )


class LyingElectrumProxy:
    """A TCP proxy in front of an Electrum server that alters answers: `tx` flips a byte of every raw transaction,
    `merkle` damages every merkle branch, `history` adds an unrelated (real, confirmed) transaction to every
    non-empty history. Everything else passes through unchanged."""

    def __init__(self, upstream_port: int, mode: str, unrelated_txid: str | None = None, unrelated_height: int = 1):
        self.upstream_port = upstream_port
        self.mode = mode
        self.unrelated_txid = unrelated_txid
        self.unrelated_height = unrelated_height
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.altered = 0
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._stop = True
        self.listener.close()

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(client,), daemon=True).start()

    def _session(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        methods: dict = {}

        def client_to_server():
            buf = b""
            try:
                while True:
                    chunk = client.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        msg = json.loads(line)
                        for req in msg if isinstance(msg, list) else [msg]:
                            methods[req.get("id")] = (req.get("method"), req.get("params"))
                        upstream.sendall(line + b"\n")
            except (OSError, ValueError):
                pass
            finally:
                upstream.close()

        threading.Thread(target=client_to_server, daemon=True).start()
        buf = b""
        try:
            while True:
                chunk = upstream.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if isinstance(msg, list):
                        msg = [self._alter(m, methods) for m in msg]
                    else:
                        msg = self._alter(msg, methods)
                    client.sendall(json.dumps(msg).encode() + b"\n")
        except (OSError, ValueError):
            pass
        finally:
            client.close()

    def _alter(self, response: dict, methods: dict) -> dict:
        method, _params = methods.get(response.get("id"), (None, None))
        result = response.get("result")
        if result is None:
            return response
        if self.mode == "tx" and method == "blockchain.transaction.get" and isinstance(result, str):
            raw = bytearray(bytes.fromhex(result))
            # The first output's value: after version, segwit marker and flag, one input with an empty scriptSig
            # (the faucet's spends), and the output count. Changing witness bytes would keep the txid.
            raw[49 if raw[4] == 0 else -10] ^= 0x01
            response["result"] = raw.hex()
            self.altered += 1
        elif self.mode == "merkle" and method == "blockchain.transaction.get_merkle":
            if result.get("merkle"):
                first = result["merkle"][0]
                result["merkle"][0] = ("0" if first[0] != "0" else "1") + first[1:]
            else:
                result["pos"] = result.get("pos", 0) + 1
            self.altered += 1
        elif self.mode == "history" and method == "blockchain.scripthash.get_history" and result:
            result.append({"tx_hash": self.unrelated_txid, "height": self.unrelated_height})
            self.altered += 1
        return response


class EsploraAdapter:
    """An Esplora REST API answered from the regtest node (its Electrum server and RPC), on loopback."""

    def __init__(self, node):
        self.node = node
        adapter = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status: int, body: bytes, ctype: str = "text/plain") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                try:
                    status, body, ctype = adapter.get(self.path)
                except Exception as e:  # an unknown txid and the like: Esplora answers 404 with text
                    status, body, ctype = 404, str(e).encode(), "text/plain"
                self._send(status, body, ctype)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length).decode()
                try:
                    txid = adapter.node.cli("sendrawtransaction", raw)
                    self._send(200, txid.encode())
                except Exception as e:
                    self._send(400, f"sendrawtransaction RPC error: {e}".encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _electrum(self, method, *params):
        with self.node.electrum() as conn:
            return conn.call(method, *params)

    def get(self, path: str):
        parts = [p for p in path.split("?")[0].split("/") if p]
        text = lambda s: (200, str(s).encode(), "text/plain")  # noqa: E731
        if parts == ["blocks", "tip", "height"]:
            return text(self.node.cli("getblockcount"))
        if parts == ["blocks", "tip", "hash"]:
            return text(self.node.cli("getbestblockhash"))
        if len(parts) == 2 and parts[0] == "block-height":
            return text(self.node.cli("getblockhash", int(parts[1])))
        if len(parts) == 3 and parts[0] == "block" and parts[2] == "header":
            return text(self.node.cli("getblockheader", parts[1], False))
        if parts == ["fee-estimates"]:
            return 200, json.dumps({"1": 2.0, "6": 1.0, "144": 1.0}).encode(), "application/json"
        if len(parts) == 3 and parts[0] == "tx" and parts[2] == "hex":
            return text(self._electrum("blockchain.transaction.get", parts[1]))
        if len(parts) == 3 and parts[0] == "tx" and parts[2] == "merkle-proof":
            info = self.node.cli("getrawtransaction", parts[1], 1)
            height = self.node.cli("getblockheader", info["blockhash"])["height"]
            proof = self._electrum("blockchain.transaction.get_merkle", parts[1], height)
            return 200, json.dumps(proof).encode(), "application/json"
        if len(parts) >= 3 and parts[0] == "scripthash" and parts[2] == "txs":
            history = self._electrum("blockchain.scripthash.get_history", parts[1])
            mempool = [h for h in history if h["height"] <= 0]
            confirmed = sorted([h for h in history if h["height"] > 0], key=lambda h: -h["height"])
            if len(parts) == 5 and parts[3] == "chain":
                after = [h["tx_hash"] for h in confirmed].index(parts[4]) + 1
                page = confirmed[after : after + 25]
            else:
                page = mempool[:50] + confirmed[:25]
            out = []
            for h in page:
                if h["height"] > 0:
                    status = {
                        "confirmed": True,
                        "block_height": h["height"],
                        "block_hash": self.node.cli("getblockhash", h["height"]),
                    }
                else:
                    status = {"confirmed": False}
                out.append({"txid": h["tx_hash"], "status": status})
            return 200, json.dumps(out).encode(), "application/json"
        return 404, b"not found", "text/plain"
