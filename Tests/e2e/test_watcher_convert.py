"""`airlock-watcher convert` (issue 18 item 6, docs/watcher.md "convert") against readers not written in Swift here:
UR parts decoded by the suite's Python BC-UR decoder (signer_psbt.ur_decode, bytewords and CBOR after BCR-2020-005 and
-012), BBQr parts by Python's base32 and zlib after coinkite's BBQr.md, PSBTs parsed by embit, QR frames (PNG, GIF) read
by zbarimg. Vectors: coinkite/BBQr's test files and real scan (Tests/Vectors/bbqr), BIP370's valid PSBTs
(Tests/Vectors/psbt). Bad input (a truncated PSBT, a PNG that is no image, frames of two payloads) exits 2 and writes
nothing; the same commands on good input are the control. The signer reads the watcher's BBQr request (the default of
`send`) and answers in BBQr."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest
from embit.psbt import PSBT
from embit.script import p2wpkh
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from signer_psbt import (
    NET,
    Coin,
    Vault,
    bbqr_decode,
    embit_psbt,
    embit_root,
    new_mnemonic,
    ur_decode,
)

ZBAR = ["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable"]
PAYEE = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"


def read_qr_pngs(paths: list[Path]) -> list[str]:
    """QR texts of PNGs by zbarimg, QR only: with every symbology on, zbar now and then also "finds" a short linear
    code (a 16-digit DataBar text) in the modules of a dense QR code."""
    out = subprocess.run([*ZBAR, *map(str, paths)], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line.strip()]


def convert(run, *args, check: bool = True, input: bytes | None = None):
    return run("airlock-watcher", "convert", *map(str, args), check=check, input=input)


def offline_psbt(mnemonic: str, inputs: int) -> bytes:
    """A wpkh PSBT of `inputs` coins of the vault's account m/84h/1h/0h, funded by one made-up transaction (the
    signer checks the previous transaction against the outpoint, not against a chain)."""
    root = embit_root(mnemonic)
    account = root.derive("m/84h/1h/0h")
    fp = root.my_fingerprint.hex()
    desc = f"wpkh([{fp}/84h/1h/0h]{account.to_public().to_base58(version=NET['xpub'])}/<0;1>/*)"
    outs = [TransactionOutput(50_000 + i, p2wpkh(account.derive([0, i]).key)) for i in range(inputs)]
    funding = Transaction(version=2, vin=[TransactionInput(bytes(32), 0)], vout=outs, locktime=0)
    coins = [Coin(funding, i, i) for i in range(inputs)]
    total = sum(c.value for c in coins)
    psbt = embit_psbt(desc, coins, [(PAYEE, 40_000)], change=(0, total - 40_000 - 200 * inputs))
    return psbt.serialize()


@pytest.fixture
def psbt_file(tmp_path) -> tuple[Path, bytes]:
    data = offline_psbt(new_mnemonic(), 40)
    path = tmp_path / "unsigned.psbt"
    path.write_bytes(data)
    return path, data


def test_psbt_to_ur_is_read_by_the_python_decoder_and_back(run, tmp_path, psbt_file):
    path, data = psbt_file
    out = tmp_path / "psbt.ur.txt"
    report = json.loads(convert(run, path, "--to", "ur", "--out", out, "--json").stdout)
    lines = out.read_text().split()
    assert report["kind"] == "psbt" and report["input_format"] == "binary" and report["format"] == "ur"
    assert report["parts"] == len(lines) > 1 and report["texts"] == lines and report["written"] == [str(out)]
    assert all(line.startswith(f"ur:crypto-psbt/{n}-{len(lines)}/") for n, line in enumerate(lines, 1))
    assert ur_decode(lines) == data
    # UR 2.0's type, and the UR text read back to the same bytes by Airlock.
    psbt_type = convert(run, path, "--to", "ur", "--ur-type", "psbt").stdout.decode().split()
    assert psbt_type[0].startswith("ur:psbt/") and ur_decode(psbt_type) == data
    back = tmp_path / "back.psbt"
    convert(run, out, "--to", "binary", "--out", back)
    assert back.read_bytes() == data
    # base64 and hex from stdin, to one line each; embit reads them.
    b64 = convert(run, "-", "--to", "base64", input=data).stdout.decode().strip()
    assert base64.b64decode(b64) == data and PSBT.from_base64(b64).serialize() == data
    hexed = convert(run, "-", "--to", "hex", input=b64.encode()).stdout.decode().strip()
    assert bytes.fromhex(hexed) == data


def test_bbqr_of_the_upstream_files_decodes_in_python(run, tmp_path, vectors):
    files = json.loads((vectors / "bbqr" / "bbqr_test_data_files.json").read_text())["files"]
    psbts = {name: bytes.fromhex(f["hex"]) for name, f in files.items() if name.endswith(".psbt")}
    assert len(psbts) == 5
    for name, data in psbts.items():
        src = tmp_path / name
        src.write_bytes(data)
        out = tmp_path / (name + ".bbqr")
        convert(run, src, "--to", "bbqr", "--out", out)
        encoding, kind, decoded = bbqr_decode(out.read_text().split())
        assert (kind, decoded) == ("P", data), name
        # Z whenever zlib makes the body shorter (every upstream PSBT compresses), as the reference splitter does.
        assert encoding == "Z", name
        back = tmp_path / (name + ".back")
        convert(run, out, "--to", "binary", "--out", back)
        assert back.read_bytes() == data, name
    # A raw transaction keeps its type (T) through BBQr and back to hex.
    txn = bytes.fromhex(files["last.txn"]["hex"])
    (tmp_path / "t.txt").write_text(txn.hex())
    parts = convert(run, tmp_path / "t.txt", "--to", "bbqr").stdout.decode().split()
    assert bbqr_decode(parts)[1:] == ("T", txn)
    (tmp_path / "t.bbqr").write_text("\n".join(parts))
    assert convert(run, tmp_path / "t.bbqr", "--to", "hex").stdout.decode().strip() == txn.hex()


def test_real_scan_bbqr_series_converts(run, tmp_path, vectors):
    """coinkite's real scan: 26 lines in scan order with repeats, 8 parts of a Z-encoded text (file type U)."""
    out = tmp_path / "scan.txt"
    report = json.loads(
        convert(run, vectors / "bbqr" / "real-scan.txt", "--to", "binary", "--out", out, "--json").stdout
    )
    assert report["input_format"] == "bbqr"
    text = out.read_text()
    assert "Zlib compressed" in text and "PSBT" in text
    lines = (vectors / "bbqr" / "real-scan.txt").read_text().split()
    # The decoder trims a text payload's surrounding whitespace (a PSBT passes byte for byte).
    assert bbqr_decode(lines)[2].decode().strip() == text.strip() and len(text) > 10_000


def test_psbt_version_0_to_2_and_back_byte_for_byte(run, tmp_path, psbt_file):
    path, data = psbt_file
    v2, v0 = tmp_path / "v2.psbt", tmp_path / "v0.psbt"
    report = json.loads(convert(run, path, "--psbt-version", "2", "--to", "binary", "--out", v2, "--json").stdout)
    assert report["psbt_version"] == 2 and report["format"] == "binary" and report["texts"] is None
    parsed = PSBT.parse(v2.read_bytes())
    original = PSBT.parse(data)
    assert parsed.version == 2 and original.version is None
    assert parsed.tx.txid() == original.tx.txid()
    # embit writes the same BIP370 bytes for the same PSBT.
    original.version = 2
    assert original.serialize() == v2.read_bytes()
    convert(run, v2, "--psbt-version", "0", "--to", "binary", "--out", v0)
    assert v0.read_bytes() == data
    # Already version 0: passed through byte for byte.
    assert convert(run, path, "--psbt-version", "0", "--to", "hex").stdout.decode().strip() == data.hex()


def tx_fields(psbt: PSBT) -> tuple:
    """The unsigned transaction without its locktime (embit's v2 view knows only the fallback locktime)."""
    tx = psbt.tx
    return (
        tx.version,
        [(i.txid, i.vout, i.sequence) for i in tx.vin],
        [(o.value, o.script_pubkey.data) for o in tx.vout],
    )


def test_bip370_vectors_convert_to_version_0(run, tmp_path, vectors):
    """BIP370's valid PSBTs to version 0 and back (inputs, outputs and version as embit reads the v2), and its
    timelock cases: the v0 transaction carries the locktime BIP370 determines (expected_locktime)."""
    data = json.loads((vectors / "psbt" / "bip370_vectors.json").read_text())
    cases = [(c["description"], base64.b64encode(bytes.fromhex(c["hex"])).decode(), None) for c in data["valid"]]
    cases += [(c["description"], c["base64"], c["expected_locktime"]) for c in data["timelock"]]
    locktimes = 0
    for n, (name, b64, locktime) in enumerate(cases):
        v2 = PSBT.from_base64(b64)
        assert v2.version == 2, name
        src = tmp_path / f"v2-{n}.txt"
        src.write_text(b64)
        proc = convert(run, src, "--psbt-version", "0", "--to", "base64", check=False)
        assert proc.returncode == 0, (name, proc.stderr.decode())
        v0 = PSBT.from_base64(proc.stdout.decode().strip())
        assert v0.version is None and tx_fields(v0) == tx_fields(v2), name
        if locktime is not None:
            assert v0.tx.locktime == locktime, name
            locktimes += 1
        back = tmp_path / f"v0-{n}.txt"
        back.write_text(proc.stdout.decode())
        again = PSBT.from_base64(convert(run, back, "--psbt-version", "2", "--to", "base64").stdout.decode().strip())
        assert again.version == 2 and tx_fields(again) == tx_fields(v2) and again.tx.txid() == v0.tx.txid(), name
    assert locktimes == len(data["timelock"]) > 0 and len(cases) > locktimes


def test_frames_as_png_and_gif_read_by_zbarimg(run, tmp_path, psbt_file):
    path, data = psbt_file
    convert(run, path, "--to", "bbqr", "--qr-density", "low", "--qr", tmp_path / "f.png")
    pngs = sorted(tmp_path.glob("f-*.png"))
    assert len(pngs) > 1
    texts = read_qr_pngs(pngs)
    assert len(texts) == len(pngs) and bbqr_decode(texts) == ("Z", "P", data)
    gif = tmp_path / "f.gif"
    convert(run, path, "--to", "ur", "--qr", gif, "--fps", "5")
    parts = [t for t in subprocess.run([*ZBAR, str(gif)], capture_output=True, check=True, text=True).stdout.split()]
    assert all(p.upper().startswith("UR:CRYPTO-PSBT/") for p in parts)
    count = int(parts[0].split("/")[1].split("-")[1])
    assert len(parts) > count, "fountain parts past the first pass, for a looping display"
    assert ur_decode([p for p in parts if int(p.split("/")[1].split("-")[0]) <= count]) == data
    # The GIF back to a file by Airlock, and PNG frames to a GIF.
    back = tmp_path / "back.psbt"
    convert(run, gif, "--to", "binary", "--out", back)
    assert back.read_bytes() == data
    convert(run, *pngs, "--qr", tmp_path / "g.gif")
    gif_texts = subprocess.run([*ZBAR, str(tmp_path / "g.gif")], capture_output=True, check=True, text=True).stdout
    assert bbqr_decode(gif_texts.split())[2] == data, "PNG frames to GIF keep the framing they came in"


def test_bad_input_exits_2_and_writes_nothing(run, tmp_path, psbt_file):
    path, data = psbt_file
    out, qr = tmp_path / "out.txt", tmp_path / "out.png"
    # Control: the good PSBT converts.
    convert(run, path, "--to", "bbqr", "--out", out)
    assert out.exists()
    out.unlink()
    cases = {}
    truncated = tmp_path / "truncated.psbt"
    truncated.write_bytes(data[: len(data) // 2])
    cases["truncated PSBT"] = [truncated]
    b64 = tmp_path / "truncated.txt"
    b64.write_text(base64.b64encode(data[:-7]).decode())
    cases["truncated base64 PSBT"] = [b64]
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    cases["garbage PNG"] = [garbage]
    # Frames of two payloads: part 1 of one BBQr series and part 2 of another.
    other = offline_psbt(new_mnemonic(), 40)
    (tmp_path / "other.psbt").write_bytes(other)
    convert(run, path, "--to", "bbqr", "--qr-density", "low", "--qr", tmp_path / "a.png")
    convert(run, tmp_path / "other.psbt", "--to", "bbqr", "--qr-density", "low", "--qr", tmp_path / "b.png")
    a, b = sorted(tmp_path.glob("a-*.png")), sorted(tmp_path.glob("b-*.png"))
    cases["mixed frames"] = [a[0], *b[1:]]
    cases["missing frame"] = a[1:]
    for name, inputs in cases.items():
        proc = convert(run, *inputs, "--to", "ur", "--out", out, "--qr", qr, check=False)
        assert proc.returncode == 2, (name, proc.returncode, proc.stderr.decode())
        assert proc.stderr.decode().startswith("error: ") and len(proc.stderr.decode()) > 20, name
        assert not out.exists() and not list(tmp_path.glob("out*.png")), f"{name}: something was written"
        as_json = convert(run, *inputs, "--to", "ur", "--json", check=False)
        assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["code"] == 2, name
    # Control for the frames: all of series a convert.
    convert(run, *a, "--to", "binary", "--out", out)
    assert out.read_bytes() == data


def test_usage_and_unsupported_requests(run, tmp_path, psbt_file):
    path, _ = psbt_file
    assert convert(run, path, "--to", "ur", "--qr-format", "bbqr", check=False).returncode == 1
    assert convert(run, path, "--psbt-version", "3", check=False).returncode == 1
    assert convert(run, path, "--to", "qr", check=False).returncode == 1
    desc = tmp_path / "desc.txt"
    desc.write_text(
        "wpkh([d34db33f/84h/1h/0h]tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/<0;1>/*)"
    )
    proc = convert(run, desc, "--psbt-version", "2", check=False)
    assert proc.returncode == 2 and b"--psbt-version applies to a PSBT" in proc.stderr
    proc = convert(run, desc, "--to", "ur", check=False)
    assert proc.returncode == 2 and b"UR has no type" in proc.stderr
    # Control: the descriptor goes into BBQr as Unicode text (type U).
    parts = convert(run, desc, "--to", "bbqr").stdout.decode().split()
    assert bbqr_decode(parts)[1:] == ("U", desc.read_text().encode())
    # A PSBT too large for one base64 QR code says so, and writes nothing.
    big = tmp_path / "big.psbt"
    big.write_bytes(offline_psbt(new_mnemonic(), 60))
    proc = convert(run, big, "--to", "base64", "--qr", tmp_path / "one.png", check=False)
    assert proc.returncode == 2 and b"one QR code" in proc.stderr and not list(tmp_path.glob("one*.png"))


def test_account_ur_to_descriptor_text(run, bin_dir, home, tmp_path):
    vault = Vault(bin_dir, home.env, home.root, "acct")
    ur = vault.run("export", "--format", "ur", check=True).stdout.decode().strip()
    src = tmp_path / "account.ur"
    src.write_text(ur)
    parts = convert(run, src, "--to", "bbqr").stdout.decode().split()
    _, kind, text = bbqr_decode(parts)
    lines = text.decode().splitlines()
    assert kind == "U" and vault.export("wpkh").split("#")[0] in lines
    # UR to UR keeps the account: its parts (cut for --qr-density) give the same descriptors.
    again = tmp_path / "again.ur"
    convert(run, src, "--to", "ur", "--qr-density", "low", "--out", again)
    assert again.read_text().startswith("ur:crypto-account/")
    assert bbqr_decode(convert(run, again, "--to", "bbqr").stdout.decode().split())[2] == text


def test_signer_reads_the_watchers_bbqr_request_and_answers_in_bbqr(bin_dir, home, tmp_path, run):
    vault = Vault(bin_dir, home.env, home.root, "signer")
    data = offline_psbt(vault.mnemonic, 30)
    (tmp_path / "req.psbt").write_bytes(data)
    convert(run, tmp_path / "req.psbt", "--to", "bbqr", "--qr", tmp_path / "req.png")
    request = sorted(tmp_path.glob("req-*.png"))
    assert bbqr_decode(read_qr_pngs(request))[:2] == ("Z", "P")
    verdict = json.loads(vault.sign(*request, args=("--qr", str(tmp_path / "signed.png"), "--json")).stdout)
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == list(range(30))
    answer = sorted(tmp_path.glob("signed*.png"))
    encoding, kind, signed = bbqr_decode(read_qr_pngs(answer))
    assert (encoding, kind) == ("Z", "P")
    parsed = PSBT.parse(signed)
    assert parsed.tx.txid() == PSBT.parse(data).tx.txid()
    assert all(len(i.partial_sigs) == 1 for i in parsed.inputs)
    # The answer converted for a wallet that reads base64.
    b64 = convert(run, *answer, "--to", "base64").stdout.decode().strip()
    assert base64.b64decode(b64) == signed
