"""SLIP-39 end to end (issue 18 item 5, docs/signer.md "SLIP-39"): init --slip39, backup slip39, restore --slip39,
against Trezor's reference implementation python-shamir-mnemonic in both directions, every vector of
Tests/Vectors/slip39/vectors.json through `restore --slip39 --shares-file`, and the refusals (too few shares, shares
of two backups, a mistyped word, a failed check) with their controls."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import shamir_mnemonic
from embit import bip32, bip39
from embit.networks import NETWORKS
from eth_account import Account

MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
NET = NETWORKS["regtest"]
KDF = ["--kdf-memory", "64"]


def write(home, name: str, text: str) -> str:
    path = home.root / name
    path.write_text(text + "\n")
    return str(path)


def fingerprint(seed: bytes) -> str:
    return bip32.HDKey.from_seed(seed, version=NET["xprv"]).my_fingerprint.hex()


def info(run, pw: str) -> dict:
    return json.loads(run("airlock-signer", "info", "--json", "--password-file", pw, check=True).stdout)


def restore_shares(run, home, shares: list[str], *extra: str, name="shares.txt"):
    path = write(home, name, "\n".join(shares))
    pw = write(home, "pw.txt", "pw-slip")
    return run(
        "airlock-signer",
        "restore",
        "--slip39",
        "--shares-file",
        path,
        "--password-file",
        pw,
        "--network",
        "regtest",
        "--force",
        "--json",
        *KDF,
        *extra,
    )


def init_slip39(run, home, layout: str, *extra: str) -> dict:
    pw = write(home, "pw.txt", "pw-slip")
    proc = run(
        "airlock-signer",
        "init",
        "--slip39",
        layout,
        "--network",
        "regtest",
        "--password-file",
        pw,
        "--json",
        "--show-secret",
        "--skip-backup-check",
        *KDF,
        *extra,
        check=True,
    )
    return json.loads(proc.stdout)


def test_init_slip39_groups_restore_with_shamir_mnemonic(run, home):
    passphrase = write(home, "pass.txt", "slip39 passphrase")
    doc = init_slip39(run, home, "1of2:2of3,3of5", "--strength", "128", "--passphrase-file", passphrase)
    assert doc["group_threshold"] == 1
    assert [g["member_threshold"] for g in doc["groups"]] == [2, 3]
    assert [len(g["shares"]) for g in doc["groups"]] == [3, 5]
    assert all(len(share.split()) == 20 for g in doc["groups"] for share in g["shares"])
    first, second = doc["groups"][0]["shares"], doc["groups"][1]["shares"]
    # Any two of the first group, any three of the second: the reference gives one master secret.
    secrets = {
        shamir_mnemonic.combine_mnemonics(chosen, b"slip39 passphrase")
        for chosen in ([first[0], first[2]], [first[1], first[0]], [second[4], second[1], second[2]])
    }
    assert len(secrets) == 1
    (secret,) = secrets
    assert len(secret) == 16
    vault = info(run, str(home.root / "pw.txt"))
    assert vault["master_fingerprint"] == doc["master_fingerprint"] == fingerprint(secret)
    # Another passphrase is another wallet (as on a Trezor), never an error.
    assert fingerprint(shamir_mnemonic.combine_mnemonics(first[:2], b"")) != vault["master_fingerprint"]
    # The vault's xpub is the reference's: BIP84 account 0 of the master secret used as the BIP32 seed.
    exported = run(
        "airlock-signer", "export", "--password-file", str(home.root / "pw.txt"), "--passphrase-file", passphrase
    )
    assert exported.returncode == 0, exported.stderr
    account = bip32.HDKey.from_seed(secret, version=NET["xprv"]).derive("m/84h/1h/0h").to_public()
    account.version = NET["vpub"] if "vpub" in exported.stdout.decode() else NET["xpub"]
    assert account.to_base58() in exported.stdout.decode()


def test_shamir_mnemonic_shares_restore_here(run, home):
    secret = bytes(range(32))
    groups = shamir_mnemonic.generate_mnemonics(
        2, [(2, 3), (1, 1), (3, 5)], secret, passphrase=b"TREZOR", iteration_exponent=0
    )
    want = fingerprint(secret)
    passphrase = write(home, "pass.txt", "TREZOR")
    # Groups 1 and 3; the file may hold surplus shares and comments.
    lines = ["# my shares", *groups[0][:3], "", *groups[2][1:5]]
    proc = restore_shares(run, home, lines, "--passphrase-file", passphrase)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["master_fingerprint"] == want and out["secret_bytes"] == 32 and out["shares_used"] == 5
    # Typed one per line (stdin, not a terminal): the 1-of-1 group and two of the first.
    pw = write(home, "pw.txt", "pw-slip")
    typed = run(
        "airlock-signer",
        "restore",
        "--slip39",
        "--password-file",
        pw,
        "--passphrase-file",
        passphrase,
        "--network",
        "regtest",
        "--force",
        *KDF,
        input="\n".join([groups[1][0], groups[0][2], groups[0][0]]) + "\n",
    )
    assert typed.returncode == 0, typed.stderr
    assert b"Still needed" in typed.stderr
    assert info(run, pw)["master_fingerprint"] == want
    # Control for the passphrase: without it the same shares restore another wallet.
    other = restore_shares(run, home, [groups[1][0], *groups[0][:2]])
    assert other.returncode == 0 and json.loads(other.stdout)["master_fingerprint"] != want


def test_restore_refuses_incomplete_mixed_and_mistyped_shares(run, home):
    groups = shamir_mnemonic.generate_mnemonics(1, [(3, 5)], bytes(16), iteration_exponent=0)
    other = shamir_mnemonic.generate_mnemonics(1, [(3, 5)], bytes(16), iteration_exponent=0)
    shares = groups[0]
    # Too few: exit 2, naming what is missing, no vault.
    few = restore_shares(run, home, shares[:2])
    assert few.returncode == 2 and b"group 1 has 2 of 3 shares" in few.stderr
    assert not home.vault.exists()
    # A share of another backup among them.
    mixed = restore_shares(run, home, [*shares[:2], other[0][2]])
    assert mixed.returncode == 2 and b"one backup" in mixed.stderr
    assert not home.vault.exists()
    # One word changed: the checksum names the share.
    words = shares[1].split()
    words[7] = "academic" if words[7] != "academic" else "acid"
    typo = restore_shares(run, home, [shares[0], " ".join(words), shares[2]])
    assert typo.returncode == 2 and b"checksum of share 2" in typo.stderr
    assert not home.vault.exists()
    # Typed shares that end early.
    pw = write(home, "pw.txt", "pw-slip")
    short = run("airlock-signer", "restore", "--slip39", "--password-file", pw, *KDF, input=shares[0] + "\n")
    assert short.returncode == 2 and b"ended before the shares were complete" in short.stderr
    assert not home.vault.exists()
    # Control: the three right shares restore.
    good = restore_shares(run, home, shares[2:5])
    assert good.returncode == 0 and json.loads(good.stdout)["master_fingerprint"] == fingerprint(bytes(16))


VECTORS = json.loads((__import__("pathlib").Path(__file__).parents[1] / "Vectors/slip39/vectors.json").read_text())


@pytest.mark.parametrize("entry", VECTORS, ids=[entry[0] for entry in VECTORS])
def test_every_slip39_vector_through_restore(run, home, entry):
    description, mnemonics, secret, xprv = entry
    proc = restore_shares(run, home, mnemonics, "--passphrase-file", write(home, "pass.txt", "TREZOR"))
    if not secret:
        assert proc.returncode == 2, (description, proc.stderr)
        assert not home.vault.exists()
        return
    assert proc.returncode == 0, (description, proc.stderr)
    root = bip32.HDKey.from_base58(xprv)
    assert json.loads(proc.stdout)["master_fingerprint"] == root.my_fingerprint.hex()
    assert fingerprint(bytes.fromhex(secret)) == root.my_fingerprint.hex()


def test_backup_slip39_of_a_bip39_vault_shares_its_seed(run, home):
    words = write(home, "words.txt", MNEMONIC)
    pw = write(home, "pw.txt", "pw-slip")
    bip39_pass = write(home, "bip39pass.txt", "TREZOR")
    run(
        "airlock-signer",
        "restore",
        "--mnemonic-file",
        words,
        "--password-file",
        pw,
        "--passphrase-file",
        bip39_pass,
        "--network",
        "regtest",
        *KDF,
        check=True,
    )
    want = info(run, pw)["master_fingerprint"]
    seed = bip39.mnemonic_to_seed(MNEMONIC, "TREZOR")
    assert want == fingerprint(seed)
    proc = run(
        "airlock-signer",
        "backup",
        "slip39",
        "--shares",
        "2of3",
        "--password-file",
        pw,
        "--passphrase-file",
        bip39_pass,
        "--json",
        "--show-secret",
        "--skip-backup-check",
        check=True,
    )
    shares = json.loads(proc.stdout)["groups"][0]["shares"]
    assert all(len(share.split()) == 59 for share in shares)  # 64 bytes
    assert shamir_mnemonic.combine_mnemonics([shares[2], shares[0]]) == seed
    restored = restore_shares(run, home, shares[1:])
    assert restored.returncode == 0 and json.loads(restored.stdout)["master_fingerprint"] == want
    # A SLIP-39 vault has no BIP39 words to show.
    shown = run("airlock-signer", "backup", "show", "--show-secret", "--password-file", str(home.root / "pw.txt"))
    assert shown.returncode == 1 and b"SLIP-39" in shown.stderr


def test_backup_slip39_of_a_slip39_vault_is_the_same_backup(run, home):
    doc = init_slip39(run, home, "2of3", "--passphrase-file", write(home, "pass.txt", "p"), "--store-passphrase")
    pw = str(home.root / "pw.txt")
    again = run(
        "airlock-signer",
        "backup",
        "slip39",
        "--groups",
        "2of2:1of1,2of3",
        "--password-file",
        pw,
        "--json",
        "--show-secret",
        "--skip-backup-check",
        check=True,
    )
    new = json.loads(again.stdout)
    assert new["identifier"] == doc["identifier"]
    old_secret = shamir_mnemonic.combine_mnemonics(doc["groups"][0]["shares"][:2], b"p")
    new_secret = shamir_mnemonic.combine_mnemonics(
        [new["groups"][0]["shares"][0], *new["groups"][1]["shares"][1:]], b"p"
    )
    assert old_secret == new_secret and fingerprint(new_secret) == doc["master_fingerprint"]
    # Without --show-secret and without a terminal: refused, nothing printed.
    refused = run("airlock-signer", "backup", "slip39", "--shares", "2of3", "--password-file", pw)
    assert refused.returncode == 4 and refused.stdout == b""
    # Bad layouts are command-line errors.
    for bad in (["--shares", "3of2"], ["--shares", "1of3"], ["--groups", "2of3:2of3,2of3"], []):
        proc = run("airlock-signer", "backup", "slip39", *bad, "--password-file", pw, "--show-secret")
        assert proc.returncode == 1, bad


def test_init_slip39_checks_every_share(run, home, bin_dir):
    pw = write(home, "pw.txt", "pw-slip")
    args = ["init", "--slip39", "2of3", "--network", "regtest", "--password-file", pw, "--json", "--show-secret"]
    proc = subprocess.Popen(
        [str(bin_dir / "airlock-signer"), *args, *KDF],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=home.env,
    )
    lines = []
    while not lines or lines[-1] != b"}\n":
        lines.append(proc.stdout.readline())
        assert lines[-1], "no JSON"
    shares = json.loads(b"".join(lines))["groups"][0]["shares"]
    checked = []
    current = None
    while len(checked) < 9:
        line = proc.stderr.readline().decode()
        assert line, "the check ended early"
        named = re.search(r"SLIP-39 share (\d) of 3", line)
        if named:
            current = int(named.group(1)) - 1
        match = re.match(r"word #(\d+)\?", line)
        if match:
            checked.append((current, int(match.group(1))))
            proc.stdin.write((shares[current].split()[int(match.group(1)) - 1] + "\n").encode())
            proc.stdin.flush()
    proc.stdin.close()
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert sorted({share for share, _ in checked}) == [0, 1, 2]
    assert info(run, pw)["master_fingerprint"] == fingerprint(shamir_mnemonic.combine_mnemonics(shares[1:]))
    # Attack: wrong words for a share: exit 4, nothing written.
    home.vault.unlink()
    failed = run("airlock-signer", *args, *KDF, input="nope\n" * 9)
    assert failed.returncode == 4 and b"backup check failed" in failed.stderr
    assert not home.vault.exists()


def test_slip39_vault_keeps_its_backup_when_a_key_is_imported(run, home):
    """Both extensions of the sealed payload at once (docs/formats.md, layout 0x04): an imported key is listed and the
    SLIP-39 backup split again afterwards still combines to the vault's seed."""
    doc = init_slip39(run, home, "2of3")
    pw = str(home.root / "pw.txt")
    key = bytes(range(1, 33))
    expected = Account.from_key(key).address
    hex_file = write(home, "key.hex", key.hex())
    imported = run(
        "airlock-signer", "key", "import", hex_file, "--chain", "eth", "--label", "k", "--password-file", pw, "--json"
    )
    assert imported.returncode == 0, imported.stderr
    listed = json.loads(run("airlock-signer", "key", "list", "--password-file", pw, "--json", check=True).stdout)
    assert [k["address"] for k in listed["keys"]] == [expected]
    again = run(
        "airlock-signer",
        "backup",
        "slip39",
        "--shares",
        "2of3",
        "--password-file",
        pw,
        "--json",
        "--show-secret",
        "--skip-backup-check",
        check=True,
    )
    new = json.loads(again.stdout)
    assert new["identifier"] == doc["identifier"]
    secret = shamir_mnemonic.combine_mnemonics(new["groups"][0]["shares"][:2], b"")
    assert fingerprint(secret) == doc["master_fingerprint"] == info(run, pw)["master_fingerprint"]
