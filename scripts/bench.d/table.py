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
import re
import sys

# Issue 19's goals, as the largest acceptable ratio airlock/peer for (section, workload prefix, peer); the table
# prints each ratio's verdict beside it. The floor row is a multiple of libsecp256k1's time for the same signatures.
GOALS = [
    ("psbt", "sign-p2wpkh", "bdk", 0.33),
    ("psbt", "sign-p2wpkh", "libsecp256k1 floor", 2.0),
    ("psbt", "sign-p2tr", "bdk", 0.33),
    ("psbt", "sign-p2tr", "libsecp256k1 floor", 2.0),
    ("psbt", "parse-serialize", "bdk", 0.5),
    ("qr", "decode", "zbarimg", 0.5),
    ("camera", "decode", "zbarimg", 0.34),  # issue 33 item 2: at least 3x faster (1/3, printed as 0.34)
    ("watcher", "full sync", "bdk", 0.5),
    ("watcher", "send", "bdk", 1.0),
]


def verdict(section: str, workload: str, peer: str, ratio: float) -> str:
    for goal_section, prefix, goal_peer, limit in GOALS:
        if section == goal_section and workload.startswith(prefix) and peer == goal_peer:
            if ratio <= limit:
                return f"goal <= {limit:g}: met"
            return f"goal <= {limit:g}: missed by {ratio / limit - 1:.0%}"
    return ""


GROWTH = re.compile(r"^growth: (?P<what>.+?),? (?P<size>[\d,]+) txs$")
GROWTH_GOAL = 4.8  # issue 19: from 5,000 to 20,000 transactions, at most 4.8x (linear within 20%)


def growth_lines(rows: list[dict]) -> list[str]:
    """The growth rows' ratios between consecutive chain sizes, per workload: wall time and, where measured, the
    client's CPU time. Rows are named "growth: sync 5,000 txs" / "growth: send 0.01 BTC, 20,000 txs"."""
    series: dict[str, dict[int, dict]] = {}
    for r in rows:
        m = GROWTH.match(r["workload"])
        if r["impl"] == "airlock" and m:
            series.setdefault(m["what"], {})[int(m["size"].replace(",", ""))] = r
    lines = []
    for what, by_size in series.items():
        sizes = sorted(by_size)
        for small, large in zip(sizes, sizes[1:]):
            a, b = by_size[small], by_size[large]
            wall = b["ms"] / a["ms"] if a["ms"] > 0 else float("nan")
            text = (
                f"  growth, {what}: {small:,} -> {large:,} txs ({large / small:g}x the transactions): wall {wall:.2f}x"
            )
            if a.get("cpu_ms") and b.get("cpu_ms"):
                text += ", client CPU {:.2f}x".format(b["cpu_ms"] / a["cpu_ms"])
            if large == 4 * small:
                worst = max(wall, b["cpu_ms"] / a["cpu_ms"] if a.get("cpu_ms") and b.get("cpu_ms") else 0)
                verdict = "within" if worst <= GROWTH_GOAL else f"over by {worst / GROWTH_GOAL - 1:.0%}"
                text += f" (goal <= {GROWTH_GOAL}x: {verdict})"
            lines.append(text)
    return lines


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
                ratio = "-"
                judged = ""
                if airlock and peer["ms"] > 0:
                    value = airlock["ms"] / peer["ms"]
                    ratio = f"{value:.3f}"
                    judged = verdict(section, workload, peer["impl"], value)
                line = "{:<24} {:>12}  {:<22} {:>12.2f} {:>14}".format(name, ours, label, peer["ms"], ratio)
                print(line + ("  " + judged if judged else ""))
        mine = [r for r in rows if r["section"] == section]
        for r in mine:
            if r["impl"] == "airlock" and r.get("detail"):
                print("  airlock, {}: {}".format(r["workload"], r["detail"]))
        for r in mine:
            if r.get("cpu_ms") is not None:
                text = "  {}, {}: CPU {:.0f} ms in the client".format(r["impl"], r["workload"], r["cpu_ms"])
                if r.get("server_cpu_ms") is not None:
                    text += ", {:.0f} ms in the server".format(r["server_cpu_ms"])
                print(text)
        notes = []
        for r in mine:
            if r.get("note") and (r["impl"], r["note"]) not in notes:
                notes.append((r["impl"], r["note"]))
        for impl, note in notes:
            print(f"  {impl}: {note}")
        for line in growth_lines(mine):
            print(line)
        print()


if __name__ == "__main__":
    main()
