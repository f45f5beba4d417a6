#!/usr/bin/env python3
"""The shared table printer of scripts/bench: reads JSON-lines rows from every section and prints, per section and
workload, Airlock's time, each peer's time, and the ratio Airlock / peer (below 1 means Airlock is faster).

A row: {"section": "psbt", "workload": "sign-p2wpkh-1445", "impl": "airlock" | "<peer>", "ms": 12.3,
        "detail": "optional note", "wall_ms": optional}. `ms` is what is compared (the psbt section: process CPU
time). Optional "note" (a longer description, printed once under the section's table), "cpu_ms" and
"server_cpu_ms" (CPU time of the client and of the server, printed under the table too). A section adds rows; it
never prints its own table.
"""

import json
import sys


def main():
    rows = [json.loads(line) for path in sys.argv[1:] for line in open(path) if line.strip()]
    sections = []
    for row in rows:
        if row["section"] not in sections:
            sections.append(row["section"])
    header = "{:<24} {:>12}  {:<22} {:>12} {:>14}".format("workload", "airlock ms", "peer", "peer ms", "airlock/peer")
    for section in sections:
        print(f"== {section} ==")
        print(header)
        print("-" * len(header))
        workloads = []
        for row in rows:
            if row["section"] == section and row["workload"] not in workloads:
                workloads.append(row["workload"])
        for workload in workloads:
            mine = [r for r in rows if r["section"] == section and r["workload"] == workload]
            airlock = next((r for r in mine if r["impl"] == "airlock"), None)
            peers = [r for r in mine if r["impl"] != "airlock"] or [None]
            for number, peer in enumerate(peers):
                name = workload if number == 0 else ""
                ours = "{:.2f}".format(airlock["ms"]) if airlock and number == 0 else ""
                if peer is None:
                    print(f"{name:<24} {ours:>12}")
                    continue
                label = peer["impl"] + (" ({})".format(peer["detail"]) if peer.get("detail") else "")
                ratio = "{:.3f}".format(airlock["ms"] / peer["ms"]) if airlock and peer["ms"] > 0 else "-"
                print("{:<24} {:>12}  {:<22} {:>12.2f} {:>14}".format(name, ours, label, peer["ms"], ratio))
        mine = [r for r in rows if r["section"] == section]
        for r in mine:
            if r["impl"] == "airlock" and r.get("detail"):
                print("  airlock, {}: {}".format(r["workload"], r["detail"]))
        for r in mine:
            if r.get("cpu_ms") is not None:
                print(
                    "  {}, {}: CPU {:.0f} ms in the client, {:.0f} ms in the server".format(
                        r["impl"], r["workload"], r["cpu_ms"], r.get("server_cpu_ms") or 0
                    )
                )
        notes = []
        for r in mine:
            if r.get("note") and (r["impl"], r["note"]) not in notes:
                notes.append((r["impl"], r["note"]))
        for impl, note in notes:
            print(f"  {impl}: {note}")
        print()


if __name__ == "__main__":
    main()
