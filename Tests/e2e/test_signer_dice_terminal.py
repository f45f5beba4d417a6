"""`airlock-signer init --dice` (rolls mixed with OS entropy, never replacing it) and `--terminal` QR output (half-block
characters that a camera reads: here turned back into an image and decoded by zbar, a reader not written here)."""

from __future__ import annotations

import json
import re
import subprocess

from embit import bip39
from PIL import Image
from test_signer_vault import KDF, restore, secret_file

ROLLS_50 = "1" * 50


def init_with_dice(run, home, rolls: str, words: int = 12):
    """Runs init --dice with the rolls on stdin (an empty line ends them), skipping the word check."""
    pw = secret_file(home, "pw.txt", "pw-dice")
    return run(
        "airlock-signer",
        "init",
        "--dice",
        "--words",
        str(words),
        "--network",
        "regtest",
        "--force",
        "--password-file",
        pw,
        "--skip-backup-check",
        "--json",
        "--show-secret",
        *KDF,
        input=rolls + "\n\n",
    )


def test_dice_rolls_are_mixed_not_used_alone(run, home):
    first = init_with_dice(run, home, ROLLS_50)
    assert first.returncode == 0, first.stderr
    second = init_with_dice(run, home, ROLLS_50)
    assert second.returncode == 0, second.stderr
    a, b = (json.loads(p.stdout)["mnemonic"] for p in (first, second))
    assert bip39.mnemonic_is_valid(a) and bip39.mnemonic_is_valid(b)
    # The same 50 rolls twice give different seeds: the OS random source is always part of the mix.
    assert a != b


def test_too_few_dice_rolls_write_nothing(run, home):
    # 49 valid rolls; 0, 7, 8, 9 and letters are not d6 rolls and do not count.
    proc = init_with_dice(run, home, "1" * 49 + " 0789abc")
    assert proc.returncode == 2
    assert re.search(rb"only 49 dice rolls; 50 are needed for 12 words", proc.stderr)
    assert not home.vault.exists()
    proc = init_with_dice(run, home, "6" * 98, words=24)
    assert proc.returncode == 2 and b"99 are needed for 24 words" in proc.stderr
    assert not home.vault.exists()


def terminal_to_image(text: str, scale: int = 6) -> Image.Image:
    """Turns `qrencode -t ansiutf8`-style output (white foreground on black, half blocks: the upper and lower pixel
    of each character) into a grayscale image."""
    rows = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines():
        if not line:
            continue
        top, bottom = [], []
        for ch in line:
            light = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}[ch]
            top.append(light[0])
            bottom.append(light[1])
        rows += [top, bottom]
    width = max(len(r) for r in rows)
    img = Image.new("L", (width, len(rows)), 0)
    for y, row in enumerate(rows):
        for x, v in enumerate(row):
            img.putpixel((x, y), 255 if v else 0)
    return img.resize((width * scale, len(rows) * scale), Image.NEAREST)


def test_terminal_qr_reads_back(run, home, tmp_path):
    assert restore(run, home).returncode == 0
    pw = str(home.root / "pw.txt")
    descriptor = run("airlock-signer", "export", "--script", "wpkh", "--password-file", pw, check=True).stdout
    proc = run(
        "airlock-signer",
        "export",
        "--script",
        "wpkh",
        "--format",
        "descriptor",
        "--terminal",
        "--password-file",
        pw,
        check=True,
    )
    text = proc.stdout.decode()
    assert "▀" in text or "▄" in text
    png = tmp_path / "terminal.png"
    terminal_to_image(text).save(png)
    decoded = subprocess.run(
        ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", str(png)], capture_output=True, check=True
    ).stdout
    assert decoded.strip() == descriptor.strip()
