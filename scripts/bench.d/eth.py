#!/usr/bin/env python3
"""The eth section of scripts/bench: `airlock-watcher eth sync` of an address with 1,000 ERC-20 transfers from the
devnet (scripts/devnet, docs/devnet.md), beside web3.py doing the same reads on the same node in the same run.

Usage: eth.py AIRLOCK_WATCHER WORKDIR RUNS
Prints JSON-lines rows for table.py.

Every figure is wall-clock time, the median of RUNS:
- Airlock: the whole `airlock-watcher eth sync` process, each run from a fresh data dir (import, `node set` and
  `token add` are not timed): eth_chainId, eth_blockNumber, eth_getBalance and eth_getTransactionCount at that
  block, balanceOf by eth_call, eth_getLogs of the Transfer topic from and to the address over every block (the
  devnet mines one block per transaction, so 1,001+ blocks), every quantity parsed strictly, then one SQLite
  transaction writing the balances and the 1,000 transfers.
  The node answers log queries from its index (built before the runs), so both sides time their own work.
- web3.py: `Web3(HTTPProvider)` and the same reads (chain_id, block_number, get_balance, get_transaction_count,
  eth.call of balanceOf, two get_logs), decoding each Transfer log's topics and amount; nothing is written.
A sync that finds another number of transfers than the chain holds is an error: the section stops.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
TRANSFERS = 1000
TOPIC = (
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"  # keccak("Transfer(address,address,uint256)")
)


def fail(message: str) -> None:
    sys.exit("eth bench: " + message)


def children_cpu_ms() -> float:
    """User + system CPU time of the finished child processes (the `airlock-watcher eth sync` runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1e3


def rpc(port: int, body):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=600) as reply:
        return json.loads(reply.read())


def main() -> None:
    watcher, work, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts" / "devnet"))
    node = subprocess.Popen(
        [sys.executable, "-m", "devnet.node", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        info = json.loads(node.stdout.readline())
        port, token, chain = info["rpc"], info["token"], info["chain_id"]
        rpc(port, {"jsonrpc": "2.0", "id": 0, "method": "dev_faucet", "params": [ADDRESS, hex(10**18)]})
        for start in range(0, TRANSFERS, 100):
            batch = [
                {"jsonrpc": "2.0", "id": i, "method": "dev_mint", "params": [ADDRESS, hex(i + 1)]}
                for i in range(start, start + 100)
            ]
            answers = rpc(port, batch)
            if any("error" in a for a in answers):
                fail(f"minting failed: {answers[0]}")
        # One untimed log query builds the node's log index (scripts/devnet/devnet/rpc.py), so that neither side's
        # first run pays for it and the runs time the clients, not eth-tester reading receipts.
        rpc(
            port,
            {"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs", "params": [{"fromBlock": "0x0", "topics": [TOPIC]}]},
        )
        expected = sum(range(1, TRANSFERS + 1))
        airlock_times, airlock_cpu = [], []
        for n in range(runs):
            data = work / f"airlock-{n}"
            shutil.rmtree(data, ignore_errors=True)
            base = [watcher, "--data-dir", str(data)]
            for args in (
                ["eth", "import", ADDRESS, "--chain-id", str(chain)],
                ["node", "set", f"eth+http://127.0.0.1:{port}"],
                ["eth", "token", "add", token],
            ):
                subprocess.run(base + args, check=True, capture_output=True)
            cpu, started = children_cpu_ms(), time.perf_counter()
            out = subprocess.run(
                base + ["eth", "sync", "--json"], capture_output=True, env=dict(os.environ, AIRLOCK_NODE_TIMEOUT="600")
            )
            if out.returncode != 0:
                fail(f"eth sync exited {out.returncode}: {out.stdout.decode()} {out.stderr.decode()}")
            airlock_times.append((time.perf_counter() - started) * 1000)
            airlock_cpu.append(children_cpu_ms() - cpu)
            if json.loads(out.stdout)["new_transfers"] != TRANSFERS:
                fail(f"airlock found {json.loads(out.stdout)['new_transfers']} transfers, not {TRANSFERS}")
            shown = json.loads(
                subprocess.run(base + ["eth", "balance", "--json"], check=True, capture_output=True).stdout
            )
            if int(shown["tokens"][0]["amount"]) != expected:
                fail("airlock's token balance differs from the chain's")
        from web3 import Web3

        web3_times = []
        owner_topic = "0x" + "00" * 12 + ADDRESS[2:].lower()
        for _ in range(runs):
            started = time.perf_counter()
            w3 = Web3(Web3.HTTPProvider(f"http://127.0.0.1:{port}", request_kwargs={"timeout": 600}))
            assert w3.eth.chain_id == chain
            tip = w3.eth.block_number
            w3.eth.get_balance(ADDRESS, tip)
            w3.eth.get_transaction_count(ADDRESS, tip)
            balance = int(w3.eth.call({"to": token, "data": "0x70a08231" + owner_topic[2:]}, tip).hex(), 16)
            logs = []
            for topics in ([TOPIC, owner_topic], [TOPIC, None, owner_topic]):
                logs += w3.eth.get_logs({"fromBlock": 0, "toBlock": tip, "address": token, "topics": topics})
            amounts = [int(log["data"].hex(), 16) for log in logs]
            web3_times.append((time.perf_counter() - started) * 1000)
            if len(logs) != TRANSFERS or balance != expected or sum(amounts) != expected:
                fail(f"web3.py found {len(logs)} transfers")
        workload = f"eth-sync-{TRANSFERS}-transfers"
        note = "airlock-watcher eth sync (process) vs web3.py reads in process, devnet over HTTP; median of runs"
        for impl, times in (("airlock", airlock_times), ("web3.py", web3_times)):
            row = {"section": "eth", "workload": workload, "impl": impl, "ms": statistics.median(times)}
            row["detail"] = f"{TRANSFERS} Transfer logs"
            row["note"] = note
            if impl == "airlock":
                row["cpu_ms"] = statistics.median(airlock_cpu)  # the sync process's own CPU, not the node's
            print(json.dumps(row))
    finally:
        node.terminate()
        node.wait(timeout=30)


if __name__ == "__main__":
    main()
