"""BSMS (BIP129) on the signer (issue 17, item 2): the round-1 key record of `export --format bsms [--token HEX]`,
and a coordinator's round-2 descriptor record registered with its first address checked.

Peers: embit derives the BIP48 cosigner keys from the mnemonics and computes the descriptor record's first address;
Electrum 4.3.4 verifies the key record's legacy signature. The BIP's own vectors run in Tests/DescriptorsTests/BSMSTests.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from embit.descriptor import Descriptor
from embit.script import p2pkh
from signer_psbt import NET, Vault, embit_root


def key_record(vault: Vault, *args: str) -> str:
    return vault.run("export", "--format", "bsms", *args, check=True).stdout.decode()


def test_key_record_round_1(bin_dir: Path, home, tmp_path: Path):
    vault = Vault(bin_dir, home.env, home.root, "a")
    lines = key_record(vault).rstrip("\n").split("\n")
    assert lines[0] == "BSMS 1.0" and lines[1] == "00" and len(lines) == 5
    key = embit_root(vault.mnemonic).derive("m/48h/1h/0h/2h")
    origin, xpub = re.fullmatch(r"\[([0-9a-f]{8})/(.*)\](\w+)", lines[2]).group(1, 3)[0], lines[2].split("]")[1]
    assert origin == vault.fingerprint.hex()
    assert xpub == key.to_public().to_base58(NET["xpub"])
    assert len(lines[3]) <= 80
    # The signature is the legacy format by the key on line 3 over the first four lines: Electrum agrees.
    address = p2pkh(key.get_public_key()).address(NET)
    message = "\n".join(lines[:4])

    def electrum(msg: str) -> str:
        out = subprocess.run(
            ["electrum", "--regtest", "--offline", "-D", str(tmp_path / "el"), "verifymessage", address, lines[4], msg],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        return out.stdout.strip()

    assert electrum(message) == "true"
    assert electrum(message.replace("Airlock", "Mallory")) == "false"
    # With a token the record is hex: a 32-byte MAC and the ciphertext of the same five lines' length.
    encrypted = key_record(vault, "--token", "a54044308ceac9b7").strip()
    assert re.fullmatch(r"[0-9a-f]+", encrypted) and len(encrypted) // 2 == 32 + len(
        "\n".join(lines).replace("00", "a54044308ceac9b7", 1)
    )
    # A token of the wrong size is a usage error.
    bad = vault.run("export", "--format", "bsms", "--token", "abcd")
    assert bad.returncode == 1 and bad.stdout == b""


def descriptor_record(keys: list[str], first_address: str) -> str:
    template = "wsh(sortedmulti(2," + ",".join(k + "/**" for k in keys) + "))"
    return f"BSMS 1.0\n{template}\n/0/*,/1/*\n{first_address}\n"


def test_descriptor_record_round_2_registers_with_first_address(bin_dir: Path, home, tmp_path: Path):
    a, b = (Vault(bin_dir, home.env, home.root, n) for n in ("a", "b"))
    keys = [key_record(v).split("\n")[2] for v in (a, b)]
    concrete = "wsh(sortedmulti(2," + ",".join(k.replace("'", "h") + "/0/*" for k in keys) + "))"
    first = Descriptor.from_string(concrete).derive(0).address(NET)
    # Attack: a record whose first address is not its descriptor's: refused (exit 2), nothing stored.
    wrong = Descriptor.from_string(concrete).derive(1).address(NET)
    bad = tmp_path / "bad.bsms"
    bad.write_text(descriptor_record(keys, wrong))
    refused = a.run("multisig", "register", str(bad), "--name", "team", "--yes")
    assert refused.returncode == 2, refused.stderr
    assert b"first address" in refused.stderr
    listed = json.loads(a.run("multisig", "list", "--json", check=True).stdout)
    assert listed == []
    # Control: the right record registers, and the checked first address is shown.
    good = tmp_path / "good.bsms"
    good.write_text(descriptor_record(keys, first))
    out = a.run("multisig", "register", str(good), "--name", "team", "--yes", check=True)
    assert f"first address: {first}".encode() in out.stderr
    assert b"THIS VAULT" in out.stderr
    listed = json.loads(a.run("multisig", "list", "--json", check=True).stdout)
    assert [w["name"] for w in listed] == ["team"]


@pytest.mark.parametrize("token", ["0011223344556677"])
def test_encrypted_record_with_a_wrong_token_is_refused(bin_dir: Path, home, tmp_path: Path, token: str):
    a = Vault(bin_dir, home.env, home.root, "a")
    # The signer's own encrypted key record is not a descriptor record; decrypting it with another token fails the MAC.
    data = key_record(a, "--token", "a54044308ceac9b7").strip()
    path = tmp_path / "wallet.dat"
    path.write_text(data + "\n")
    out = a.run("multisig", "register", str(path), "--token", token, "--yes")
    assert out.returncode == 3 and b"does not authenticate" in out.stderr


def test_watcher_imports_the_descriptor_record(bin_dir: Path, home, run, tmp_path: Path):
    a, b = (Vault(bin_dir, home.env, home.root, n) for n in ("a", "b"))
    keys = [key_record(v).split("\n")[2] for v in (a, b)]
    concrete = "wsh(sortedmulti(2," + ",".join(k.replace("'", "h") + "/0/*" for k in keys) + "))"
    first = Descriptor.from_string(concrete).derive(0).address(NET)
    bad = tmp_path / "bad.bsms"
    bad.write_text(descriptor_record(keys, Descriptor.from_string(concrete).derive(2).address(NET)))
    refused = run("airlock-watcher", "import", str(bad), "--name", "team", "--network", "regtest")
    assert refused.returncode == 2 and b"first address" in refused.stderr
    good = tmp_path / "good.bsms"
    good.write_text(descriptor_record(keys, first))
    out = run("airlock-watcher", "import", str(good), "--name", "team", "--network", "regtest")
    assert out.returncode == 0, out.stderr
    assert f"first address {first}".encode() in out.stderr
    addresses = run("airlock-watcher", "receive", "--wallet", "team", "--json")
    assert first in addresses.stdout.decode()
