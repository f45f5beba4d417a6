#!/usr/bin/env python3
"""The ethsign section of scripts/bench: eth-account beside `airlock-bench eth`, the same work in one run.

Usage: eth_sign.py AIRLOCK_BENCH DIR RUNS [COUNT]. Both sides derive COUNT addresses m/44'/60'/0'/0/i from one seed
(every path from the master key: eth-account's `key_from_seed`, Airlock's `ExtendedPrivateKey.derive`) and sign COUNT
EIP-1559 transactions (nonce i, fixed fields) with the key of index 0 (eth-account: `Account.sign_transaction`;
Airlock: hash, RFC 6979 recoverable signature, serialization). Both results are verified: Airlock's addresses and raw
transactions (written by `airlock-bench eth --write DIR`) must equal eth-account's byte for byte, and each of
Airlock's transactions must recover to the sender. Times are process CPU time (median of RUNS); wall time travels in
`wall_ms`. Prints JSON-lines rows for scripts/bench.d/table.py.
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from eth_account import Account
from eth_account.hdaccount import key_from_seed, seed_from_mnemonic

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
RECIPIENT = "0x" + "35" * 20


def tx(nonce: int) -> dict:
    return {
        "type": 2,
        "chainId": 1,
        "nonce": nonce,
        "maxPriorityFeePerGas": 1_500_000_000,
        "maxFeePerGas": 30_000_000_000,
        "gas": 21_000,
        "to": RECIPIENT,
        "value": 10**15,
        "data": b"",
        "accessList": [],
    }


def measure(body):
    cpu, start = time.process_time(), time.perf_counter()
    result = body()
    return result, (time.process_time() - cpu) * 1e3, (time.perf_counter() - start) * 1e3


def row(workload, impl, cpu, wall, detail=""):
    return {
        "section": "ethsign",
        "workload": workload,
        "impl": impl,
        "ms": statistics.median(cpu),
        "wall_ms": statistics.median(wall),
        "detail": detail,
    }


def main():
    bench, directory, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    mine = json.loads(
        subprocess.run(
            [bench, "eth", "--count", str(count), "--runs", str(runs), "--write", str(directory)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    airlock_addresses = json.loads((directory / "addresses.json").read_text())
    airlock_txs = json.loads((directory / "transactions.json").read_text())

    seed = seed_from_mnemonic(MNEMONIC, "")
    derive_cpu, derive_wall, sign_cpu, sign_wall = [], [], [], []
    addresses = raws = None
    for _ in range(runs):
        addresses, cpu, wall = measure(
            lambda: [Account.from_key(key_from_seed(seed, f"m/44'/60'/0'/0/{i}")).address for i in range(count)]
        )
        derive_cpu.append(cpu)
        derive_wall.append(wall)
        key = key_from_seed(seed, "m/44'/60'/0'/0/0")
        raws, cpu, wall = measure(lambda: [Account.sign_transaction(tx(n), key).raw_transaction for n in range(count)])
        sign_cpu.append(cpu)
        sign_wall.append(wall)

    # Both results verified: equal byte for byte, and Airlock's transactions recover to the sender.
    assert airlock_addresses == addresses, "airlock-bench's addresses differ from eth-account's"
    assert airlock_txs == ["0x" + bytes(r).hex() for r in raws], "airlock-bench's transactions differ"
    sender = addresses[0]
    for raw in airlock_txs[:: max(1, count // 50)]:
        assert Account.recover_transaction(raw) == sender
    detail = f"{count}, results equal"
    rows = [
        row(f"derive {count} addresses", "airlock", [mine["deriveCPUms"]], [mine["deriveWallMs"]], detail),
        row(f"derive {count} addresses", "eth-account", derive_cpu, derive_wall, detail),
        row(f"sign {count} EIP-1559 txs", "airlock", [mine["signCPUms"]], [mine["signWallMs"]], detail),
        row(f"sign {count} EIP-1559 txs", "eth-account", sign_cpu, sign_wall, detail),
    ]
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
