"""Animated QR output as a phone wallet meets it: `--qr PATH.gif` (one looping GIF of every part) read frame by frame
by zbarimg, a reader not written here, and imported by the watcher; `--terminal --animate` driven in tmux, its screen
captured and read by zbar while it cycles, stopped with a key."""

from __future__ import annotations

import subprocess
import time

from terminal import TmuxSession, shell_line
from test_signer_dice_terminal import terminal_to_image
from test_signer_vault import restore

ZBAR = ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable"]


def ur_parts(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.upper().startswith("UR:")]


def test_gif_of_every_part_reads_in_zbarimg_and_imports(run, home, tmp_path):
    assert restore(run, home).returncode == 0
    pw = str(home.root / "pw.txt")
    gif = tmp_path / "account.gif"
    run("airlock-signer", "export", "--format", "ur", "--qr", str(gif), "--qr-density", "low", "--fps", "5",
        "--password-file", pw, check=True)  # fmt: skip
    frames = subprocess.run(["identify", "-format", "%T\n", str(gif)], capture_output=True, check=True, text=True)
    delays = frames.stdout.split()
    assert len(delays) > 2 and set(delays) == {"20"}  # 5 frames a second
    parts = ur_parts(subprocess.run([*ZBAR, str(gif)], capture_output=True, check=True, text=True).stdout)
    assert len(parts) == len(delays)  # every frame holds a code
    total = int(parts[0].split("/")[1].split("-")[1])
    assert len(parts) > total  # fountain parts past the first pass, for a scanner that misses frames
    imported = run("airlock-watcher", "import", str(gif), "--name", "from-gif", "--json", check=True)
    assert b"from-gif" in imported.stdout


def test_terminal_animation_cycles_until_a_key(run, home, bin_dir, tmp_path):
    assert restore(run, home).returncode == 0
    pw = str(home.root / "pw.txt")
    argv = [bin_dir / "airlock-signer", "export", "--format", "ur", "--qr-density", "low", "--terminal", "--animate",
            "--fps", "2", "--password-file", pw]  # fmt: skip
    with TmuxSession(shell_line(argv, home.env), width=120, height=60) as tmux:
        seen: list[str] = []
        deadline = time.time() + 60
        while time.time() < deadline and len(set(seen)) < 3:
            time.sleep(0.3)
            lines = [line for line in tmux.screen().splitlines() if set(line) <= set("█▀▄ ") and line.strip()]
            if len(lines) < 20:
                continue
            png = tmp_path / "screen.png"
            terminal_to_image("\n".join(lines)).save(png)
            decoded = subprocess.run([*ZBAR, str(png)], capture_output=True, text=True).stdout.strip()
            if decoded.upper().startswith("UR:") and (not seen or seen[-1] != decoded):
                seen.append(decoded)
        assert len(set(seen)) >= 3, f"successive frames read from the screen: {seen}"
        numbers = [int(part.split("/")[1].split("-")[0]) for part in seen]
        assert numbers == sorted(numbers) or numbers[0] > numbers[-1]  # in order (allowing one wrap-around)
        tmux.send_keys("q")
        assert "EXIT=0" in tmux.wait_for("EXIT=", timeout=20)
