#!/usr/bin/env python3
"""The frames section of scripts/bench (issue 18 item 3): how many QR frames a 100-input PSBT needs in each direction.

`airlock-bench qr-psbt-frames --json --write-frames DIR` counts, for the request (the watcher's unsigned PSBT with every
previous transaction) and the answer (the signer's signed PSBT), the baseline (the full PSBT as UR at 400-byte
fragments, Sparrow's default) and Airlock's choice at the baseline's QR version (BBQr with zlib; the answer trimmed),
and decodes its own series back. This script checks that with peers not written here: segno gives the QR version of
every frame (level L, no error boost), so the baseline's version and "Airlock at the same version" are not Airlock's
word; Python's base32 and zlib decode Airlock's BBQr series and must give the PSBT bytes, which embit must parse with
the same unsigned transaction in both directions. The rows carry frame counts in the `ms` column (marked in the note):
the ratio airlock/peer is Airlock's frames over the baseline's. Fails unless both directions need at least 30% fewer
frames than the baseline.

Usage: frames.py AIRLOCK_BENCH DIR
"""

import base64
import json
import subprocess
import sys
import zlib
from pathlib import Path

import segno
from embit.psbt import PSBT

GOAL = 0.30


def lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def version(text: str) -> int:
    return segno.make(text, error="l", boost_error=False, micro=False).version


def bbqr_decode(parts: list[str]) -> bytes:
    """BBQr (coinkite/BBQr BBQr.md): `B$` + encoding + file type + total and index in base 36, then the body."""
    encoding, kind, total = parts[0][2], parts[0][3], int(parts[0][4:6], 36)
    assert kind == "P", kind
    bodies = {}
    for part in parts:
        assert part[2:6] == parts[0][2:6], "parts of two series"
        bodies[int(part[6:8], 36)] = part[8:]
    assert sorted(bodies) == list(range(total)), "missing parts"
    body = "".join(bodies[i] for i in range(total))
    if encoding == "H":
        return bytes.fromhex(body)
    raw = base64.b32decode(body + "=" * (-len(body) % 8))
    return zlib.decompress(raw, wbits=-10) if encoding == "Z" else raw


def main():
    bench, directory = sys.argv[1], Path(sys.argv[2])
    out = subprocess.run(
        [bench, "qr-psbt-frames", "--inputs", "100", "--json", "--write-frames", str(directory)],
        check=True,
        capture_output=True,
    )
    report = json.loads(out.stdout)
    txids = set()
    for name in ("request", "answer"):
        figures = report[name]
        baseline, airlock = lines(directory / f"{name}-baseline.txt"), lines(directory / f"{name}-airlock.txt")
        psbt = (directory / f"{name}.psbt").read_bytes()
        assert bbqr_decode(airlock) == psbt, f"{name}: the BBQr series does not decode to the PSBT"
        txids.add(PSBT.parse(psbt).tx.txid().hex())
        base_version = max(version(t) for t in baseline)
        top = max(version(t) for t in airlock)
        assert base_version == figures["qr_version"], (base_version, figures["qr_version"])
        assert top <= base_version, f"{name}: Airlock's frames need version {top} > {base_version}"
        assert (len(baseline), len(airlock)) == (figures["baseline_frames_ur400"], figures["airlock_frames"])
        saving = 1 - len(airlock) / len(baseline)
        if saving < GOAL:
            sys.exit(f"frames bench: {name} needs {len(airlock)} frames vs {len(baseline)}: {saving:.0%} < 30%")
        workload = f"{name} frames, 100 inputs"
        note = (
            f"frame counts, not ms: baseline UR 400 B of the full PSBT ({figures['baseline_bytes']} B) at QR version "
            f"{base_version} vs Airlock {figures['airlock_format']} of {figures['airlock_bytes']} B at version <= "
            f"{base_version} ({saving:.0%} fewer); BBQr without zlib {figures['bbqr_base32_frames']}, UR fitted "
            f"({figures['ur_fitted_fragment_length']} B) {figures['ur_fitted_frames']}; versions by segno "
            f"{segno.__version__}, BBQr decoded by Python's base32/zlib, PSBT parsed by embit"
        )
        row = {"section": "frames", "workload": workload}
        print(
            json.dumps(row | {"impl": "airlock", "ms": len(airlock), "detail": figures["airlock_format"], "note": note})
        )
        print(json.dumps(row | {"impl": "ur400-sparrow", "ms": len(baseline), "detail": "UR 400 B"}))
    assert len(txids) == 1, "request and answer are not the same transaction"
    # Anti-exfil (issue 30): the four hand-overs of `send --anti-exfil`, Airlock's framing at the baseline's version,
    # beside the plain exchange's two (counts, not ms).
    ae = report["anti_exfil"]
    total = ae["round1_request"] + ae["round1_answer"] + ae["round2_request"] + ae["round2_answer"]
    plain = ae["plain_request"] + ae["plain_answer"]
    note = (
        "frame counts, not ms: request with commitments {round1_request}, signer commitments {round1_answer}, "
        "entropy revealed {round2_request}, signed answer {round2_answer}; plain exchange {plain_request} + "
        "{plain_answer}".format(**ae)
    )
    row = {"section": "frames", "workload": "anti-exfil frames, 100 inputs, all four hand-overs"}
    print(json.dumps(row | {"impl": "airlock", "ms": total, "detail": "BBQr Z, 4 hand-overs", "note": note}))
    print(json.dumps(row | {"impl": "airlock-plain", "ms": plain, "detail": "BBQr Z, 2 hand-overs"}))


if __name__ == "__main__":
    main()
