"""`scripts/devnet/cli --port N COMMAND`: faucet ADDRESS WEI · mint ADDRESS AMOUNT · mine [N] · token · or any RPC
method with JSON arguments (`eth_getBalance '"0x…"' '"latest"'`). Prints the result as JSON; errors exit 1."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request


def call(port: int, method: str, params: list) -> object:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        reply = json.loads(response.read())
    if "error" in reply:
        raise RuntimeError(f"{method}: {reply['error'].get('message')} ({reply['error'].get('code')})")
    return reply["result"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/devnet/cli", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("command")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args(argv)
    try:
        if args.command == "faucet" and len(args.args) == 2:
            result = call(args.port, "dev_faucet", [args.args[0], hex(int(args.args[1]))])
        elif args.command == "mint" and len(args.args) == 2:
            result = call(args.port, "dev_mint", [args.args[0], hex(int(args.args[1]))])
        elif args.command == "mine" and len(args.args) <= 1:
            result = call(args.port, "dev_mine", [hex(int(args.args[0]) if args.args else 1)])
        elif args.command == "token" and not args.args:
            result = call(args.port, "dev_token", [])
        else:
            result = call(args.port, args.command, [json.loads(a) for a in args.args])
    except (RuntimeError, OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
