"""The node process: `scripts/devnet/node [--port N] [--automine 0|1] [--max-log-range N]`.

Serves Ethereum JSON-RPC over HTTP on 127.0.0.1 (POST, single or batch requests), deploys the token, then prints one
JSON line `{"rpc": PORT, "chain_id": N, "token": ADDRESS}` on stdout. Stops cleanly on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .chain import DevChain
from .rpc import Methods, RPCError

MAX_BODY = 5 * 1024 * 1024


def answer(methods: Methods, lock: threading.Lock, request: object) -> dict | None:
    """One JSON-RPC response object (None for a notification)."""
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(request.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
    params = request.get("params", [])
    if not isinstance(params, list):
        return {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "error": {"code": -32602, "message": "params must be a list"},
        }
    try:
        with lock:
            result = methods.call(request["method"], params)
        response = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
    except RPCError as error:
        body = {"code": error.code, "message": error.message}
        if error.data is not None:
            body["data"] = error.data
        response = {"jsonrpc": "2.0", "id": request.get("id"), "error": body}
    return response if "id" in request else None


def make_handler(methods: Methods, lock: threading.Lock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            sys.stderr.write("devnet: " + (format % args) + "\n")

        def _send(self, status: int, payload: object) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                self._send(413 if length > MAX_BODY else 400, {"error": "bad request body"})
                return
            try:
                request = json.loads(self.rfile.read(length))
            except ValueError:
                self._send(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
                return
            if isinstance(request, list):
                if not request:
                    self._send(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "empty batch"}})
                    return
                responses = [r for r in (answer(methods, lock, item) for item in request) if r is not None]
                self._send(200, responses)
            else:
                self._send(200, answer(methods, lock, request))

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/devnet/node", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--automine", type=int, choices=(0, 1), default=1, help="1: a block per transaction")
    parser.add_argument("--max-log-range", type=int, default=None, help="refuse eth_getLogs spanning more blocks")
    args = parser.parse_args(argv)

    chain = DevChain(automine=bool(args.automine))
    methods = Methods(chain, max_log_range=args.max_log_range)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(methods, threading.Lock()))
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(json.dumps({"rpc": server.server_address[1], "chain_id": chain.chain_id, "token": chain.token}), flush=True)
    sys.stdout = sys.stderr
    server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
