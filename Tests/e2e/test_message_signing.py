"""Message signing across the air gap (issue 17, item 5): `airlock-signer message sign`, `message verify` on both
executables, BIP322 simple/full and the legacy `signmessage` format.

Peers: embit derives the addresses from the mnemonic on its own (BIP44/49/84/86 paths); Electrum 4.3.4 (Debian)
verifies the legacy signatures with its `verifymessage`; BIP322's own vector files (Tests/Vectors/bip322, copied from
bitcoin/bips) are checked through the watcher's command line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from embit import script as escript
from signer_psbt import NET, Vault, embit_root

SCRIPTS = {
    "wpkh": ("m/84h/1h/0h", escript.p2wpkh),
    "sh-wpkh": ("m/49h/1h/0h", lambda pub: escript.p2sh(escript.p2wpkh(pub))),
    "pkh": ("m/44h/1h/0h", escript.p2pkh),
    "tr": ("m/86h/1h/0h", escript.p2tr),
}


def embit_address(mnemonic: str, script: str, index: int, change: bool = False) -> str:
    path, make = SCRIPTS[script]
    key = embit_root(mnemonic).derive(f"{path}/{1 if change else 0}/{index}")
    return make(key.get_public_key()).address(NET)


@pytest.fixture
def vault(bin_dir: Path, home) -> Vault:
    return Vault(bin_dir, home.env, home.root, "msg")


def sign(vault: Vault, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return vault.run("message", "sign", *args, check=check)


def verify(run, tool: str, address: str, message: str, signature: str) -> subprocess.CompletedProcess:
    return run(tool, "message", "verify", "--address", address, "--message", message, "--signature", signature)


@pytest.mark.parametrize("script", ["wpkh", "tr", "sh-wpkh", "pkh"])
def test_sign_each_script_verified_by_both_sides(vault: Vault, run, script: str):
    message = "Airlock owns this address: " + script
    out = sign(vault, "--script", script, "--index", "3", "--message", message, "--yes", "--json")
    report = json.loads(out.stdout)
    assert report["address"] == embit_address(vault.mnemonic, script, 3)
    assert report["format"] == ("bip322-simple" if script in ("wpkh", "tr") else "bip322-full")
    assert report["signature"].startswith("smp" if script in ("wpkh", "tr") else "ful")
    for tool in ("airlock-watcher", "airlock-signer"):
        good = verify(run, tool, report["address"], message, report["signature"])
        assert good.returncode == 0, good.stderr
        assert b"valid" in good.stdout
        # Attack: the same signature for another message, and for another address of the same seed.
        bad = verify(run, tool, report["address"], message + "!", report["signature"])
        assert bad.returncode == 2 and b"invalid" in bad.stderr
        other = embit_address(vault.mnemonic, script, 4)
        assert verify(run, tool, other, message, report["signature"]).returncode == 2


@pytest.mark.parametrize("script", ["pkh", "wpkh", "sh-wpkh"])
def test_legacy_signatures_verified_by_electrum(vault: Vault, script: str, tmp_path: Path):
    message = "legacy signmessage from Airlock"
    report = json.loads(
        sign(
            vault, "--script", script, "--index", "1", "--format", "legacy", "--message", message, "--yes", "--json"
        ).stdout
    )
    assert report["address"] == embit_address(vault.mnemonic, script, 1)

    def electrum(msg: str) -> str:
        out = subprocess.run(
            ["electrum", "--regtest", "--offline", "-D", str(tmp_path / "el"), "verifymessage"]
            + [report["address"], report["signature"], msg],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert electrum(message) == "true"
    assert electrum(message + ".") == "false"  # control: Electrum does check the message


def test_bip322_vectors_through_the_watcher(run, vectors: Path):
    basic = json.loads((vectors / "bip322" / "basic-test-vectors.json").read_text())
    generated = json.loads((vectors / "bip322" / "generated-test-vectors.json").read_text())
    cases = [(e, s) for e in basic["simple"] + generated["full"] for s in e["bip322_signatures"]]
    for entry, signature in cases:
        out = run("airlock-watcher", "message", "verify", "--address", entry["address"], "--message", entry["message"],
                  "--signature", signature, "--json")  # fmt: skip
        assert out.returncode == 0, (entry["type"], out.stderr)
        report = json.loads(out.stdout)
        assert report["result"] == "valid"
        assert (report["lock_time"], report["sequence"]) == (entry.get("lock_time", 0), entry.get("sequence", 0))
    for entry in basic["error"]:
        out = verify(run, "airlock-watcher", entry["address"], entry["message"], entry["signature"])
        assert out.returncode == 2, entry["description"]


def test_sign_by_address_search_and_refusals(vault: Vault):
    target = embit_address(vault.mnemonic, "tr", 7, change=True)
    out = sign(vault, "--address", target, "--message", "found by search", "--yes", "--json")
    report = json.loads(out.stdout)
    assert report["address"] == target
    assert report["origin"].endswith("/86h/1h/0h/1/7]") or "/86'/1'/0'/1/7" in report["origin"]
    # An address of another seed: refused (exit 4), nothing on stdout.
    stranger = embit_address(
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "wpkh", 0
    )
    refused = sign(vault, "--address", stranger, "--message", "x", "--yes", "--search-limit", "20", check=False)
    assert refused.returncode == 4 and refused.stdout == b""
    assert b"not an address of this vault" in refused.stderr
    # The simple form cannot carry a P2PKH signature; legacy cannot sign for taproot: usage errors.
    for script, fmt in (("pkh", "bip322-simple"), ("tr", "legacy")):
        bad = sign(vault, "--script", script, "--index", "0", "--format", fmt, "--message", "x", "--yes", check=False)
        assert bad.returncode == 1 and bad.stdout == b"", bad.stderr


def test_review_shows_the_text_and_cleans_control_characters(vault: Vault):
    message = "pay\x1b[2J attention\nsecond line"
    out = sign(vault, "--index", "0", "--message", message, "--yes")
    stderr = out.stderr.decode()
    assert "Sign a message (not a transaction)" in stderr
    assert "pay\\u001b[2J attention" in stderr and "second line" in stderr
    assert "\x1b" not in stderr
    assert "held hidden characters" in stderr
    # Control: a plain message has no warning.
    plain = sign(vault, "--index", "0", "--message", "plain text", "--yes").stderr.decode()
    assert "!!!" not in plain
    # Without --yes and without a terminal: refused, nothing signed.
    unasked = sign(vault, "--index", "0", "--message", "x", check=False)
    assert unasked.returncode == 4 and unasked.stdout == b""


def test_message_from_file_is_signed_byte_for_byte(vault: Vault, run, tmp_path: Path):
    path = tmp_path / "proof.txt"
    path.write_bytes(b"line one\nline two\n")
    report = json.loads(sign(vault, "--index", "2", "--message-file", str(path), "--yes", "--json").stdout)
    assert report["message_bytes"] == 18
    sig = tmp_path / "sig.txt"
    sig.write_text(report["signature"] + "\n")
    ok = run("airlock-watcher", "message", "verify", "--address", report["address"], "--message-file", str(path),
             "--signature-file", str(sig))  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    # Without the trailing newline the bytes differ: invalid.
    stripped = verify(run, "airlock-watcher", report["address"], "line one\nline two", report["signature"])
    assert stripped.returncode == 2
