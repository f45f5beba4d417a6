#!/usr/bin/env python3
"""The qr section of scripts/bench: Airlock decodes 100 UR frame PNGs and joins them into the payload; zbarimg reads
the same files to text only (one process, all files). Wall time of whole runs, median of RUNS; rows on stdout.

Equal settings: zbarimg scans QR only (`-Sdisable -Sqrcode.enable`; text mode, so that its output splits into
lines) and as sparsely as Airlock's first pass does. Airlock finds these frames' modules (6 px) large enough to scan
each image reduced by 2 (each pixel the mean of a 2x2 block) at density 2: one line in four of the original, each
sample averaging four pixels. zbarimg gets the same spacing, `-Sx-density=4 -Sy-density=4` (the sparsest at which it
still reads every frame; at 5 it reads none). Airlock rescans at full size only the images where that pass finds
nothing, none here. Every frame must be read on both sides: zbarimg's texts must be the frames' UR parts, Airlock's
joined payload its whole length.

Usage: qr.py AIRLOCK_BENCH DIR RUNS
"""

import json
import statistics
import subprocess
import sys
import time

ZBARIMG = ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", "-Sx-density=4", "-Sy-density=4"]


def zbar_version():
    return subprocess.run(["zbarimg", "--version"], capture_output=True, text=True).stdout.strip()


def main():
    bench, directory, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    files = sorted(str(p) for p in __import__("pathlib").Path(directory).glob("*.png"))
    airlock, zbar = [], []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([bench, "qr-decode", directory, "--join", "--json"], check=True, capture_output=True)
        airlock.append((time.perf_counter() - start) * 1000)
        report = json.loads(out.stdout)
        start = time.perf_counter()
        texts = subprocess.run(ZBARIMG + files, check=True, capture_output=True).stdout
        zbar.append((time.perf_counter() - start) * 1000)
    codes = len([line for line in texts.splitlines() if line.strip()])
    if codes != len(files):
        sys.exit(f"qr bench: zbarimg read {codes} of {len(files)} frames with Airlock's settings")
    workload = f"decode {len(files)} UR PNGs"
    print(
        json.dumps(
            {
                "section": "qr",
                "workload": workload,
                "impl": "airlock",
                "ms": statistics.median(airlock),
                "detail": f"joined {report['joined_payload_bytes']} B",
            }
        )
    )
    print(
        json.dumps(
            {
                "section": "qr",
                "workload": workload,
                "impl": "zbarimg",
                "ms": statistics.median(zbar),
                "detail": f"{zbar_version()}, {codes} texts, QR only, density 4",
            }
        )
    )


if __name__ == "__main__":
    main()
