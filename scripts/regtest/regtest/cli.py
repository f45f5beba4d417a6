"""`scripts/regtest/cli --datadir DIR METHOD [ARGS…]`: the node's RPC, called the way `bitcoin-cli -regtest` does.

Arguments are strings, except those that Core's client converts from JSON (heights, counts, verbosity, arrays…);
`-named` is not supported. The RPC port and cookie come from DIR/regtest/node.json and DIR/regtest/.cookie
(`--rpc-port` overrides the port). Results print as bitcoin-cli prints them; an error prints `error code: N` and
`error message:` on stderr and exits with the code's absolute value, as bitcoin-cli does.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import sys
import urllib.parse
from pathlib import Path

# (method, parameter index) pairs whose argument is JSON, after Core's src/rpc/client.cpp.
JSON_PARAMS = {
    ("getblockhash", 0),
    ("getblockheader", 1),
    ("getblock", 1),
    ("getrawtransaction", 1),
    ("sendrawtransaction", 1),
    ("sendrawtransaction", 2),
    ("testmempoolaccept", 0),
    ("testmempoolaccept", 1),
    ("estimatesmartfee", 0),
    ("setmocktime", 0),
    ("scantxoutset", 1),
    ("generatetoaddress", 0),
    ("generatetoaddress", 2),
    ("generatetodescriptor", 0),
    ("generatetodescriptor", 2),
    ("generateblock", 1),
    ("generateblock", 2),
    ("getrawmempool", 0),
    ("getrawmempool", 1),
    ("decoderawtransaction", 1),
    ("createwallet", 1),
    ("createwallet", 2),
    ("createwallet", 4),
    ("createwallet", 5),
    ("createwallet", 6),
    ("createwallet", 7),
    ("loadwallet", 1),
    ("unloadwallet", 1),
    ("importdescriptors", 0),
    ("listdescriptors", 0),
    ("listunspent", 0),
    ("listunspent", 1),
    ("listunspent", 2),
    ("listunspent", 3),
    ("listunspent", 4),
    ("listtransactions", 1),
    ("listtransactions", 2),
    ("listtransactions", 3),
    ("listsinceblock", 1),
    ("listsinceblock", 2),
    ("listsinceblock", 3),
    ("listsinceblock", 4),
    ("gettransaction", 1),
    ("gettransaction", 2),
}


class CliError(Exception):
    pass


def call(
    datadir: str | Path,
    method: str,
    params: list | dict,
    rpc_port: int | None = None,
    timeout: float = 300,
    wallet: str | None = None,
):
    """Calls one RPC (on `/wallet/<wallet>` when a wallet is named); returns the result or raises
    RpcCallError(code, message)."""
    datadir = Path(datadir)
    if rpc_port is None:
        try:
            rpc_port = json.loads((datadir / "regtest" / "node.json").read_text())["rpc"]
        except (OSError, ValueError, KeyError) as e:
            raise CliError(
                f"Could not find the node's RPC port in {datadir}/regtest/node.json: is the node running? ({e})"
            ) from None
    try:
        cookie = (datadir / "regtest" / ".cookie").read_text().strip()
    except OSError:
        raise CliError(
            f"Could not locate RPC credentials. No authentication cookie could be found in {datadir}/regtest/.cookie"
        ) from None
    conn = http.client.HTTPConnection("127.0.0.1", rpc_port, timeout=timeout)
    body = json.dumps({"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
    try:
        path = "/" if wallet is None else "/wallet/" + urllib.parse.quote(wallet, safe="")
        conn.request(
            "POST",
            path,
            body,
            {
                "Authorization": "Basic " + base64.b64encode(cookie.encode()).decode(),
                "Content-Type": "application/json",
            },
        )
        resp = conn.getresponse()
        data = resp.read()
    except OSError as e:
        raise CliError(f"Could not connect to the server 127.0.0.1:{rpc_port} ({e})") from None
    finally:
        conn.close()
    if resp.status == 401:
        raise CliError("Authorization failed: Incorrect rpcuser or rpcpassword")
    reply = json.loads(data)
    if reply.get("error"):
        raise RpcCallError(reply["error"]["code"], reply["error"]["message"])
    return reply["result"]


class RpcCallError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"error code: {code}\nerror message:\n{message}")
        self.code = code
        self.message = message


def convert_args(method: str, args: list[str]) -> list:
    out = []
    for i, a in enumerate(args):
        if (method, i) in JSON_PARAMS:
            try:
                out.append(json.loads(a))
            except ValueError:
                raise CliError(f"Error parsing JSON: {a}") from None
        else:
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/regtest/cli", description=__doc__.split("\n\n")[0])
    p.add_argument("--datadir", required=True)
    p.add_argument("--rpc-port", type=int)
    p.add_argument("-rpcwallet", "--rpcwallet", dest="wallet", help="send the call to /wallet/<name>")
    p.add_argument("method")
    p.add_argument("args", nargs="*")
    ns = p.parse_args(argv)
    try:
        result = call(ns.datadir, ns.method, convert_args(ns.method, ns.args), ns.rpc_port, wallet=ns.wallet)
    except RpcCallError as e:
        print(str(e), file=sys.stderr)
        return abs(e.code) & 0xFF or 1
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if isinstance(result, str):
        print(result)
    elif result is not None:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
