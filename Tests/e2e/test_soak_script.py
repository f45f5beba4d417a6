"""scripts/soak (issue 35 item 4) runs: a 20-second soak of `serve` and of the sync loop against the real regtest
node, with the figures it writes (the hour-long run is documented in docs/benchmarks.md, not part of the suite)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_soak_drives_serve_and_the_sync_loop(bin_dir, tmp_path):
    out = tmp_path / "soak"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "soak"), "--seconds", "20", "--sample", "5", "--payments", "12"]
        + ["--bin", str(bin_dir), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors"] == []
    serve, sync = summary["serve"], summary["sync"]
    # The page's requests were made and answered, memory was sampled from /proc, and syncs ran with their peaks.
    assert serve["rounds"] >= 1 and serve["requests"] >= 15
    assert 5 < serve["rss_mb_end"] < 2048
    assert sync["syncs"] >= 1 and 5 < sync["peak_rss_mb_end"] < 2048
    assert sync["payments_to_wallet"] >= 13  # the wallet received a payment during the loop
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert {row["kind"] for row in rows} == {"serve", "sync"}


def test_without_the_binary_it_says_what_to_build(tmp_path):
    """The control of the failure path: no airlock-watcher in --bin is a usage error naming the fix."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "soak"), "--seconds", "5", "--bin", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "no airlock-watcher in" in proc.stderr and "swift build" in proc.stderr
