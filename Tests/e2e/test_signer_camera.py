"""The signer reads a camera and shows its answer (issue 29 item 3, docs/signer.md "Camera").

A video file stands in for the camera device (`--camera video.mp4`: ffmpeg reads both alike; a file is played at its
own speed, as a camera's frames arrive). The videos are made by ffmpeg from the QR PNG frames the watcher writes
(`airlock-watcher convert … --qr`), from a multisig descriptor's frames, and from the SeedQR PNG `backup show` writes.
Each camera run is checked against the file-based path (the same signed PSBT byte for byte, the same registered
wallet, the same master fingerprint). Beside them: a timeout (exit 6, naming the parts read), a missing device and a
character device that is no camera (exit 6, clear messages), `--show` driven in tmux (the frame counter advances,
its code reads back, a key ends it with the terminal restored; SIGTERM restores it too), and `--show --json` refused.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import struct
import subprocess
import time
from pathlib import Path

import segno
from embit.script import p2wpkh
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from signer_psbt import NET, Coin, Vault, embit_psbt, embit_root
from terminal import TmuxSession
from test_register_paths import r, stranger
from test_signer_dice_terminal import terminal_to_image

PAYEE = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
ZBAR = ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable"]


def psbt_for(vault: Vault, inputs: int = 3) -> bytes:
    """A wpkh PSBT spending `inputs` coins of the vault's account m/84h/1h/0h to a stranger, with change."""
    root = embit_root(vault.mnemonic)
    account = root.derive("m/84h/1h/0h")
    fp = root.my_fingerprint.hex()
    desc = f"wpkh([{fp}/84h/1h/0h]{account.to_public().to_base58(version=NET['xpub'])}/<0;1>/*)"
    outs = [TransactionOutput(50_000 + i, p2wpkh(account.derive([0, i]).key)) for i in range(inputs)]
    funding = Transaction(version=2, vin=[TransactionInput(bytes(32), 0)], vout=outs, locktime=0)
    coins = [Coin(funding, i, i) for i in range(inputs)]
    total = sum(c.value for c in coins)
    return embit_psbt(desc, coins, [(PAYEE, 40_000)], change=(0, total - 40_000 - 300 * inputs)).serialize()


def video(frames: list[Path], out: Path, fps: int = 4, repeat: int = 1, tail: float = 0) -> Path:
    """An MP4 of `frames` (PNG), each shown 1/fps s, the whole series `repeat` times, then `tail` s of the last one;
    every frame padded on white to one even size, the largest frame's, as a phone's recording is one size.

    One size for all, given to the files before they are joined: frames of different heights (a caption of another
    length) in ffmpeg's concat input left only the frames of one size in the video (2 of 10 frames, one part
    missing from the video itself), a padding filter after the input too."""
    sizes = [struct.unpack(">II", frame.read_bytes()[16:24]) for frame in frames]  # the PNG's IHDR
    width = -(-max(w for w, _ in sizes) // 2) * 2
    height = -(-max(h for _, h in sizes) // 2) * 2
    padded = []
    for n, frame in enumerate(frames):
        padded.append(out.with_name(f"{out.stem}-frame{n:03d}.png"))
        subprocess.run(
            ["ffmpeg", "-y", "-loglevel", "error", "-i", str(frame),
             "-vf", f"pad={width}:{height}:0:0:color=white", str(padded[-1])],
            check=True,
        )  # fmt: skip
    frames = padded
    listing = out.with_name(out.stem + "-concat.txt")
    lines = []
    for _ in range(repeat):
        for frame in frames:
            lines += [f"file '{frame}'", f"duration {1 / fps}"]
    if tail:
        lines += [f"file '{frames[-1]}'", f"duration {tail}"]
    lines.append(f"file '{frames[-1]}'")  # the concat demuxer's last entry carries no duration
    listing.write_text("\n".join(lines) + "\n")
    subprocess.run(
        ["ffmpeg", "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", str(listing),
         "-vf", "fps=10",
         "-c:v", "libx264", "-pix_fmt", "yuv420p", str(out)],
        check=True,
    )  # fmt: skip
    return out


def watcher_frames(run, tmp_path: Path, source: Path, name: str, *args: str) -> list[Path]:
    """The QR PNG frames the watcher writes for `source` (`convert … --qr NAME.png`), in order."""
    out = run("airlock-watcher", "convert", str(source), "--qr", str(tmp_path / f"{name}.png"), *args, check=True)
    written = [Path(line.split(" ", 1)[1]) for line in out.stdout.decode().splitlines() if line.startswith("wrote ")]
    assert written and all(p.exists() for p in written), out.stdout
    return written


def signing_pair(bin_dir, home, run, tmp_path):
    vault = Vault(bin_dir, home.env, home.root, "cam")
    unsigned = tmp_path / "unsigned.psbt"
    unsigned.write_bytes(psbt_for(vault))
    frames = watcher_frames(run, tmp_path, unsigned, "request", "--to", "ur", "--qr-density", "low")
    assert len(frames) >= 3, "the request should take several frames"
    by_file = tmp_path / "by-file.psbt"
    vault.run("sign", str(unsigned), "--yes", "--out", str(by_file), check=True)
    return vault, unsigned, frames, by_file.read_bytes()


def test_sign_from_a_camera_video_matches_the_file_path(bin_dir, home, run, tmp_path):
    vault, _, frames, by_file = signing_pair(bin_dir, home, run, tmp_path)
    # The frames twice, then 30 s of the last: reading stops as soon as the payload is whole, long before the end.
    clip = video(frames, tmp_path / "request.mp4", repeat=2, tail=30)
    by_camera = tmp_path / "by-camera.psbt"
    started = time.monotonic()
    proc = vault.run("sign", "--camera", str(clip), "--timeout", "120", "--yes", "--out", str(by_camera))
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr.decode()
    assert by_camera.read_bytes() == by_file  # the same signed PSBT, byte for byte
    assert elapsed < 25, f"the reading went on after the payload was whole ({elapsed:.1f} s)"
    stderr = proc.stderr.decode()
    assert f"the video {clip}: frames" in stderr and "payload complete" in stderr, stderr
    # The JSON path reads the same.
    again = vault.run("sign", "--camera", str(clip), "--yes", "--json")
    assert again.returncode == 0, again.stderr.decode()
    assert json.loads(again.stdout)["verdict"] == "signed"


def test_a_camera_that_never_shows_the_whole_payload_times_out(bin_dir, home, run, tmp_path):
    vault, _, frames, _ = signing_pair(bin_dir, home, run, tmp_path)
    partial = video(frames[:1], tmp_path / "partial.mp4", tail=60)  # only the first part, for a minute
    started = time.monotonic()
    proc = vault.run("sign", "--camera", str(partial), "--timeout", "3", "--yes", "--out", str(tmp_path / "x.psbt"))
    elapsed = time.monotonic() - started
    message = proc.stderr.decode()
    assert proc.returncode == 6, message
    assert "gave up reading the video" in message and "after 3 s (--timeout)" in message, message
    assert "UR fountain" in message and f"of {len(frames)} read" in message, message  # what was read so far
    assert elapsed < 30 and not (tmp_path / "x.psbt").exists()
    # Under --json the same error is the one document on stdout.
    proc = vault.run("sign", "--camera", str(partial), "--timeout", "1.5", "--yes", "--json")
    assert proc.returncode == 6 and json.loads(proc.stdout)["error"]["code"] == 6


def test_a_missing_or_wrong_device_is_a_clear_io_error(bin_dir, home, run, tmp_path):
    vault = Vault(bin_dir, home.env, home.root, "dev")
    missing = vault.run("sign", "--camera", "/nonexistent/video7", "--yes")
    text = missing.stderr.decode()
    assert missing.returncode == 6 and "cannot open the camera /nonexistent/video7: no such device" in text, text
    assert "ls /dev/video" in text  # names what to do
    # A character device that is no camera: ffmpeg's V4L2 input refuses it, and that is what the user reads.
    null = vault.run("sign", "--camera", "/dev/null", "--yes")
    assert null.returncode == 6 and "cannot read the camera /dev/null" in null.stderr.decode(), null.stderr
    # A directory is neither: invalid input; more than one device is a usage error.
    assert vault.run("sign", "--camera", str(tmp_path), "--yes").returncode == 2
    assert vault.run("sign", "--camera", "/dev/null", "/dev/zero", "--yes").returncode == 1
    assert vault.run("sign", str(tmp_path / "nothing.psbt"), "--timeout", "3").returncode == 1  # needs --camera


def test_multisig_register_from_a_camera_matches_the_file_path(bin_dir, home, run, tmp_path):
    me = Vault(bin_dir, home.env, home.root, "reg")
    twin = Vault(bin_dir, home.env, home.root, "twin", mnemonic=me.mnemonic)
    (b, _), (c, _) = stranger(b"\x01" * 32), stranger(b"\x02" * 32)
    desc = f"wsh(sortedmulti(2,{r(me.export('wsh-multi'))},{r(b)},{r(c)}))"
    text = tmp_path / "wallet.txt"
    text.write_text(desc + "\n")
    frames = watcher_frames(run, tmp_path, text, "wallet", "--to", "bbqr", "--qr-density", "low")
    clip = video(frames, tmp_path / "wallet.mp4", repeat=2)
    by_camera = me.run("multisig", "register", "--camera", str(clip), "--name", "team", "--yes", "--json")
    assert by_camera.returncode == 0, by_camera.stderr.decode()
    by_file = twin.run("multisig", "register", str(text), "--name", "team", "--yes", "--json", check=True)
    assert json.loads(by_camera.stdout) == json.loads(by_file.stdout)
    assert json.loads(me.run("multisig", "list", "--json", check=True).stdout) == json.loads(
        twin.run("multisig", "list", "--json", check=True).stdout
    )


def test_restore_from_a_camera_reads_the_seedqr_and_skips_other_codes(bin_dir, home, run, tmp_path):
    original = Vault(bin_dir, home.env, home.root, "orig")
    seed_png = tmp_path / "seed.png"
    original.run("backup", "show", "--seedqr", "standard", "--qr", str(seed_png), "--show-secret", check=True)
    # First a code that is no SeedQR (an address), the same size, then the SeedQR: the address is skipped.
    other = tmp_path / "other.png"
    segno.make(PAYEE, error="l", micro=False).save(str(other), scale=10, border=4)
    clip = video([other, other, seed_png], tmp_path / "seed.mp4", fps=2, repeat=2)
    pw = tmp_path / "pw.txt"
    pw.write_text("pw-camera\n")
    common = ["--password-file", str(pw), "--network", "regtest", "--kdf-memory", "64", "--json"]
    by_camera = run("airlock-signer", "restore", "--camera", str(clip), "--vault", str(tmp_path / "a.airlock"),
                    *common)  # fmt: skip
    assert by_camera.returncode == 0, by_camera.stderr.decode()
    assert "other QR codes" in by_camera.stderr.decode()
    by_file = run("airlock-signer", "restore", "--seedqr", str(seed_png), "--vault", str(tmp_path / "b.airlock"),
                  *common, check=True)  # fmt: skip
    fingerprint = json.loads(by_camera.stdout)["master_fingerprint"]
    assert fingerprint == json.loads(by_file.stdout)["master_fingerprint"]
    assert fingerprint == embit_root(original.mnemonic).my_fingerprint.hex()
    # A video without any SeedQR: invalid input, and no vault is written.
    none = video([other], tmp_path / "none.mp4", fps=2, repeat=3)
    proc = run("airlock-signer", "restore", "--camera", str(none), "--vault", str(tmp_path / "c.airlock"), *common)
    assert proc.returncode == 2 and "no SeedQR seen" in proc.stderr.decode(), proc.stderr
    assert not (tmp_path / "c.airlock").exists()


def _show_line(vault: Vault, args: list[str], env: dict) -> str:
    """A shell line running `airlock-signer sign … --show` and saying afterwards whether the terminal mode is what it
    was (`stty -g` before and after) and the exit code."""
    variables = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("AIRLOCK_", "HOME")))
    argv = [str(vault.bin_dir / "airlock-signer"), *args, "--vault", str(vault.path),
            "--password-file", str(vault.password_file)]  # fmt: skip
    command = " ".join(shlex.quote(a) for a in argv)
    return (
        f"before=$(stty -g); env {variables} {command}; code=$?; "
        f'[ "$(stty -g)" = "$before" ] && echo TTY=same || echo TTY=changed; echo EXIT=$code; sleep 30'
    )


def _tmux(session: TmuxSession, what: str) -> str:
    return subprocess.run(
        ["tmux", "display-message", "-p", "-t", session.name, what], capture_output=True, text=True
    ).stdout.strip()


COUNTER = re.compile(r"Airlock · signed PSBT [0-9a-f]{8} · (\d+)/(\d+)")


def test_show_cycles_full_screen_until_a_key_and_restores_the_terminal(bin_dir, home, run, tmp_path):
    vault, unsigned, _, by_file = signing_pair(bin_dir, home, run, tmp_path)
    shown = tmp_path / "shown.psbt"
    args = ["sign", str(unsigned), "--yes", "--show", "--qr-density", "low", "--fps", "2", "--out", str(shown)]
    with TmuxSession(_show_line(vault, args, home.env), width=120, height=60) as tmux:
        counters: list[tuple[int, int]] = []
        read_back = ""
        deadline = time.time() + 60
        while time.time() < deadline and (len(set(counters)) < 3 or not read_back):
            time.sleep(0.25)
            screen = tmux.screen()
            match = COUNTER.search(screen)
            if not match:
                continue
            counters.append((int(match[1]), int(match[2])))
            assert "any key stops" in screen
            blocks = [line.strip(" ") for line in screen.splitlines() if line.strip() and set(line) <= set("█▀▄ ")]
            if not read_back and len(blocks) > 20:
                png = tmp_path / "screen.png"
                terminal_to_image("\n".join(blocks)).save(png)
                read_back = subprocess.run([*ZBAR, str(png)], capture_output=True, text=True).stdout.strip()
        assert len(set(counters)) >= 3, f"the frame counter did not advance: {counters}"
        total = counters[0][1]
        assert total >= 3 and all(n == total and 1 <= k <= n for k, n in counters)
        assert read_back.upper().startswith("UR:CRYPTO-PSBT/"), read_back  # the code on the screen reads
        assert _tmux(tmux, "#{alternate_on}") == "1" and _tmux(tmux, "#{cursor_flag}") == "0"
        tmux.send_keys("q")
        after = tmux.wait_for("EXIT=", timeout=20)
        assert "EXIT=0" in after and "TTY=same" in after, after
        assert not COUNTER.search(after) and "█" not in after  # back on the screen it drew over
        assert _tmux(tmux, "#{alternate_on}") == "0" and _tmux(tmux, "#{cursor_flag}") == "1"
    assert shown.read_bytes() == by_file  # --out was written before the display, the same signed PSBT


def test_show_restores_the_terminal_on_sigterm(bin_dir, home, run, tmp_path):
    vault, unsigned, _, _ = signing_pair(bin_dir, home, run, tmp_path)
    args = ["sign", str(unsigned), "--yes", "--show", "--qr-density", "low"]
    with TmuxSession(_show_line(vault, args, home.env), width=120, height=60) as tmux:
        assert COUNTER.search(tmux.wait_for("any key stops", timeout=60))
        shell = int(_tmux(tmux, "#{pane_pid}"))
        children = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(shell)], capture_output=True, text=True)
        (signer,) = [int(line.split()[0]) for line in children.stdout.splitlines() if "airlock-signer" in line]
        os.kill(signer, signal.SIGTERM)
        after = tmux.wait_for("EXIT=", timeout=20)
        assert "EXIT=143" in after and "TTY=same" in after, after  # ended by the signal, the terminal as it was
        assert _tmux(tmux, "#{alternate_on}") == "0" and _tmux(tmux, "#{cursor_flag}") == "1"


def test_show_needs_a_terminal_and_no_json(bin_dir, home, run, tmp_path):
    vault = Vault(bin_dir, home.env, home.root, "nojson")
    unsigned = tmp_path / "unsigned.psbt"
    unsigned.write_bytes(psbt_for(vault))
    proc = vault.run("sign", str(unsigned), "--yes", "--show", "--json")
    assert proc.returncode == 1 and b"--show" in proc.stderr
    # No terminal at all (a new session without one): refused before anything is signed.
    proc = subprocess.run(
        [str(bin_dir / "airlock-signer"), "sign", str(unsigned), "--yes", "--show", "--vault", str(vault.path),
         "--password-file", str(vault.password_file)],
        capture_output=True, env=home.env, start_new_session=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 1 and b"--show needs a terminal" in proc.stderr, proc.stderr
    control = vault.run("sign", str(unsigned), "--yes")
    assert control.returncode == 0
