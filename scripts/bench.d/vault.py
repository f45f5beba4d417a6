#!/usr/bin/env python3
"""The vault section of scripts/bench: the time to unlock a vault at the default Argon2id parameters (256 MiB, 3
passes; docs/architecture.md section 3), from `airlock-bench signer --json`.

Usage: vault.py AIRLOCK_BENCH RUNS. Prints one JSON-lines row for table.py. There is no peer: the figure is checked
against a band (0.5–1.5 s), not raced: a slower unlock is a dearer guess for whoever holds the vault file.
"""

import json
import subprocess
import sys


def main() -> None:
    bench, runs = sys.argv[1], int(sys.argv[2])
    out = subprocess.run(
        [bench, "signer", "--inputs", "1", "--repetitions", "1", "--unlocks", str(runs), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    doc = json.loads(out.stdout)
    if doc["kdf"] != {"memory_mib": 256, "passes": 3}:
        sys.exit(f"vault bench: unexpected KDF parameters {doc['kdf']}")
    median = doc["unlock_seconds"]["median"] * 1000
    band = "inside" if 500 <= median <= 1500 else "OUTSIDE"
    row = {
        "section": "vault",
        "workload": "unlock-argon2id-default",
        "impl": "airlock",
        "ms": median,
        "detail": f"Argon2id 256 MiB / 3 passes, median of {runs}; {band} the 500-1,500 ms band",
    }
    print(json.dumps(row))


if __name__ == "__main__":
    main()
