"""SeedQR end to end (issue 18 item 4, docs/signer.md "SeedQR"): `backup show --seedqr standard|compact` for every
SeedSigner vector (Tests/Vectors/seedqr, 12 and 24 words) read back by zbarimg byte for byte and at SeedSigner's sizes,
`restore --seedqr` from SeedSigner's own images and from a photo-like JPEG of Airlock's transcription card (made by
ImageMagick: perspective, blur, quality 60), and the refusals (not a SeedQR, an index above 2047, no --show-secret)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import segno
from embit import bip32, bip39
from embit.networks import NETWORKS
from PIL import Image

VECTORS_DIR = Path(__file__).parents[1] / "Vectors" / "seedqr"
VECTORS = json.loads((VECTORS_DIR / "seedqr_vectors.json").read_text())["vectors"]
KDF = ["--kdf-memory", "64"]
NET = NETWORKS["regtest"]
# SeedSigner's sizes: Standard 25×25 (12 words) and 29×29 (24); Compact 21×21 and 25×25.
SIZES = {("standard", 12): 25, ("standard", 24): 29, ("compact", 12): 21, ("compact", 24): 25}


def fingerprint(mnemonic: str) -> str:
    return bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonic), version=NET["xprv"]).my_fingerprint.hex()


def write(home, name: str, text: str) -> str:
    path = home.root / name
    path.write_text(text + "\n")
    return str(path)


def restore_words(run, home, mnemonic: str) -> str:
    pw = write(home, "pw.txt", "pw-seedqr")
    words = write(home, "words.txt", mnemonic)
    args = ["--password-file", pw, "--network", "regtest", "--force", *KDF]
    run("airlock-signer", "restore", "--mnemonic-file", words, *args, check=True)
    return pw


def restore_seedqr(run, home, image: str):
    pw = write(home, "pw.txt", "pw-seedqr")
    args = ["--password-file", pw, "--network", "regtest", "--force", "--json", *KDF]
    return run("airlock-signer", "restore", "--seedqr", image, *args)


def zbar(path: Path) -> bytes:
    out = subprocess.run(["zbarimg", "-q", "--raw", "-Sbinary", str(path)], capture_output=True, check=True)
    return out.stdout  # -Sbinary: the bytes alone, no newline added


def payload(vector: dict, form: str) -> bytes:
    if form == "standard":
        return vector["standard_digits"].encode()
    bits = vector["compact_bits"]
    return int(bits, 2).to_bytes(len(bits) // 8, "big")


CASES = [(v, form) for v in VECTORS for form in ("standard", "compact")]


@pytest.mark.parametrize("vector,form", CASES, ids=[f"{v['name']}-{form}" for v, form in CASES])
def test_backup_show_seedqr_matches_seedsigner(run, home, vector, form):
    pw = restore_words(run, home, vector["mnemonic"])
    png, card = home.root / "seed.png", home.root / "card.png"
    args = ["--seedqr", form, "--qr", str(png), "--card", str(card), "--show-secret", "--password-file", pw]
    run("airlock-signer", "backup", "show", *args, check=True)
    assert zbar(png) == payload(vector, form)
    assert zbar(card) == payload(vector, form)  # the grid and numbers leave the card scannable
    assert oct(png.stat().st_mode & 0o777) == "0o600" and oct(card.stat().st_mode & 0o777) == "0o600"
    width, _ = Image.open(png).size
    assert width // 10 - 8 == SIZES[(form, len(vector["mnemonic"].split()))]  # 10 px a module, 4-module margins
    # And on the terminal.
    shown = run("airlock-signer", "backup", "show", "--seedqr", form, "--show-secret", "--password-file", pw)
    assert shown.returncode == 0 and shown.stdout.count(b"\n") >= 14  # two module rows a line


@pytest.mark.parametrize(
    "vector,form",
    [(v, form) for v in VECTORS for form in v["images"]],
    ids=[f"{v['name']}-{form}" for v in VECTORS for form in v["images"]],
)
def test_restore_from_seedsigner_images(run, home, vector, form):
    proc = restore_seedqr(run, home, str(VECTORS_DIR / vector["images"][form]))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["master_fingerprint"] == fingerprint(vector["mnemonic"])


def test_restore_from_a_photo_of_the_card(run, home):
    vector = next(v for v in VECTORS if len(v["mnemonic"].split()) == 24)
    pw = restore_words(run, home, vector["mnemonic"])
    card = home.root / "card.png"
    args = ["--seedqr", "compact", "--card", str(card), "--show-secret", "--password-file", pw]
    run("airlock-signer", "backup", "show", *args, check=True)
    photo = home.root / "photo.jpg"
    w, h = Image.open(card).size
    corners = f"0,0 {w * 0.04},{h * 0.06} {w},0 {w * 0.97},{h * 0.02} 0,{h} {w * 0.02},{h * 0.95} {w},{h} {w},{h}"
    subprocess.run(
        ["convert", str(card), "-virtual-pixel", "white", "-distort", "Perspective", corners]
        + ["-fill", "#f3e9c8", "-colorize", "25%", "-blur", "0x1.2", "-quality", "60", str(photo)],
        check=True,
    )
    proc = restore_seedqr(run, home, str(photo))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["master_fingerprint"] == fingerprint(vector["mnemonic"])


def test_restore_seedqr_refusals(run, home):
    not_seedqr = home.root / "hello.png"
    segno.make("hello, not a seed", micro=False).save(str(not_seedqr), scale=8)
    proc = restore_seedqr(run, home, str(not_seedqr))
    assert proc.returncode == 2 and b"not a SeedQR" in proc.stderr
    assert not home.vault.exists()
    # Word 3 is 9999: no such word.
    digits = VECTORS[3]["standard_digits"]
    bad = home.root / "bad.png"
    segno.make(digits[:8] + "9999" + digits[12:], micro=False).save(str(bad), scale=8)
    proc = restore_seedqr(run, home, str(bad))
    assert proc.returncode == 2 and b"word 3 is 9999" in proc.stderr
    assert not home.vault.exists()
    # A wrong checksum: the last word changed.
    wrong = home.root / "wrong.png"
    last = int(digits[-4:])
    segno.make(digits[:-4] + f"{(last + 1) % 2048:04d}", micro=False).save(str(wrong), scale=8)
    proc = restore_seedqr(run, home, str(wrong))
    assert proc.returncode == 2 and b"checksum" in proc.stderr
    # Control: the same digits unchanged restore.
    good = home.root / "good.png"
    segno.make(digits, micro=False).save(str(good), scale=8)
    proc = restore_seedqr(run, home, str(good))
    assert proc.returncode == 0 and json.loads(proc.stdout)["master_fingerprint"] == fingerprint(VECTORS[3]["mnemonic"])
    # backup show --seedqr without --show-secret and without a terminal: refused, nothing written.
    out = home.root / "out.png"
    pw = str(home.root / "pw.txt")
    refused = run("airlock-signer", "backup", "show", "--seedqr", "standard", "--qr", str(out), "--password-file", pw)
    assert refused.returncode == 4 and not out.exists()
    usage = run("airlock-signer", "backup", "show", "--qr", str(out), "--show-secret", "--password-file", pw)
    assert usage.returncode == 1
