#!/usr/bin/env python3
"""The camera section of scripts/bench (issue 33 item 2): camera-rate QR decoding.

The frames: `airlock-bench qr-camera-frames DIR` writes 100 gray 1280x720 PGM frames of a phone showing an animated
ur:crypto-psbt (one version-17 part a frame, a real 100-part PSBT), filmed with perspective, blur, glare,
vignetting and sensor noise from a fixed seed (CameraScene.swift says how); DIR/clip.mp4 is the same frames as an
H.264 video at 10 frames a second (scripts/bench makes it with ffmpeg).

Rows:
1. One frame in process: `airlock-bench qr-camera-decode DIR --repeat RUNS` on one core (taskset -c 0): each frame
   decoded by QRReader.read(gray:) as the camera path calls it, one reader for the whole series; the median frame
   time of each pass, the median over the passes. Goal: <= 10 ms.
2. The same 100 frames through one process each, on one core: `airlock-bench qr-camera-decode DIR --repeat 1` against
   `zbarimg` on the same PGM files (process start and PGM reading on both sides), per frame. Equal settings: QR only
   on both sides (zbarimg `-Sdisable -Sqrcode.enable`), and zbarimg at the sparsest scan density at which it still
   reads every frame (ZBAR_DENSITY, found by trying 1-4 before the timed runs); Airlock chooses its own passes. Every
   frame must be read on both sides and match its part. Goal: Airlock / zbarimg <= 1/3.
3. The video end to end: `airlock-watcher convert DIR/clip.mp4 --to binary --out OUT` as a whole process (ffmpeg
   decoding the H.264 in a child, the frames over a pipe, every frame read, the 100 parts joined, the PSBT checked and
   written), both cores; OUT must equal the PSBT. Frames a second = 100 / wall time. Goal: >= 30.

Usage: camera.py AIRLOCK_BENCH AIRLOCK_WATCHER DIR RUNS
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE_CORE = ["taskset", "-c", "0"]
ZBARIMG = ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable"]


def zbar_version():
    return subprocess.run(["zbarimg", "--version"], capture_output=True, text=True).stdout.strip()


def zbar_reads(files, parts, density):
    """How many frames zbarimg reads correctly at `density`."""
    out = subprocess.run(
        ZBARIMG + [f"-Sx-density={density}", f"-Sy-density={density}"] + files, capture_output=True, text=True
    ).stdout
    return len(set(out.split("\n")) & set(parts))


def timed(command, **kwargs):
    start = time.perf_counter()
    out = subprocess.run(command, check=True, capture_output=True, **kwargs)
    return (time.perf_counter() - start) * 1000, out


def row(workload, impl, ms, detail="", **extra):
    print(json.dumps({"section": "camera", "workload": workload, "impl": impl, "ms": ms, "detail": detail, **extra}))


def main():
    bench, watcher, directory, runs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    files = sorted(str(p) for p in directory.glob("frame-*.pgm"))
    parts = (directory / "parts.txt").read_text().split()
    count = len(files)
    if count != len(parts):
        sys.exit(f"camera bench: {count} frames but {len(parts)} parts")

    # An older airlock-bench (BENCH_BASELINE) has no qr-camera-decode: only its video row is measured.
    if subprocess.run([bench, "qr-camera-decode", "--help"], capture_output=True).returncode == 0:
        decode_rows(bench, directory, files, parts, runs)
    video_row(watcher, directory, count, runs)


def decode_rows(bench, directory, files, parts, runs):
    count = len(files)
    # 1. One frame in process, one core.
    _, out = timed(ONE_CORE + [bench, "qr-camera-decode", str(directory), "--repeat", str(runs), "--json"])
    report = json.loads(out.stdout)
    row(
        "decode one 1280x720 camera frame, in process, one core (goal <= 10 ms)",
        "airlock",
        report["median_frame_ms"],
        f"median frame of {count} version-17 frames, median of {runs} passes; slowest frame "
        f"{report['max_frame_ms']:.1f} ms; {report['failures']} unread",
    )

    # 2. Whole processes over the same frames, one core, against zbarimg at its sparsest density that reads them all.
    density = next((d for d in (4, 3, 2, 1) if zbar_reads(files, parts, d) == count), None)
    if density is None:
        sys.exit(f"camera bench: zbarimg reads only {zbar_reads(files, parts, 1)} of {count} frames at density 1")
    zbar_command = ONE_CORE + ZBARIMG + [f"-Sx-density={density}", f"-Sy-density={density}"] + files
    airlock_command = ONE_CORE + [bench, "qr-camera-decode", str(directory), "--repeat", "1", "--json"]
    airlock, zbar = [], []
    for _ in range(runs):
        ms, out = timed(airlock_command)
        if json.loads(out.stdout)["failures"]:
            sys.exit("camera bench: Airlock missed frames")
        airlock.append(ms / count)
        ms, out = timed(zbar_command, text=True)
        zbar.append(ms / count)
        if len(set(out.stdout.split("\n")) & set(parts)) != count:
            sys.exit("camera bench: zbarimg missed frames")
    workload = f"decode {count} camera frames (PGM), one process, one core, per frame"
    row(workload, "airlock", statistics.median(airlock), "process start and PGM reading included")
    row(workload, "zbarimg", statistics.median(zbar), f"{zbar_version()}, QR only, density {density}")


def video_row(watcher, directory, count, runs):
    # 3. The video, end to end through airlock-watcher convert (the ffmpeg child included), both cores.
    clip = directory / "clip.mp4"
    expected = (directory / "payload.psbt").read_bytes()
    times = []
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home}
        for _ in range(runs):
            out_file = Path(home) / "out.psbt"
            ms, _ = timed([watcher, "convert", str(clip), "--to", "binary", "--out", str(out_file)], env=env)
            if out_file.read_bytes() != expected:
                sys.exit("camera bench: the video did not decode to the PSBT")
            out_file.unlink()
            times.append(ms)
    wall = statistics.median(times)
    row(
        f"video of {count} frames end to end (convert, ffmpeg child included; goal >= 30 frames/s)",
        "airlock",
        wall,
        f"{count / wall * 1000:.1f} frames/s; H.264 720p at 10 frames/s; the {len(expected):,}-byte PSBT checked",
    )


if __name__ == "__main__":
    main()
