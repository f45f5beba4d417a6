"""Derivation interop (docs/architecture.md section 9): the first 1,000 receive addresses of a wpkh and a tr descriptor from
`airlock-signer inspect --json --count 1000` equal those of embit and of BDK (bdkpython), for the BIP39 test mnemonic
"abandon … about" on regtest, with tpub keys carrying their origin."""

from __future__ import annotations

import json

import bdkpython as bdk
import pytest
from descriptor_interop import inspect_descriptor
from embit import bip32, bip39
from embit.descriptor import Descriptor as EmbitDescriptor
from embit.networks import NETWORKS

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
COUNT = 1000


def account_descriptor(script: str, purpose: int, branch: str) -> str:
    """`script([fp/purpose'/1'/0']tpub/branch/*)` for the test mnemonic, built with embit."""
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(MNEMONIC), version=NETWORKS["test"]["xprv"])
    path = f"m/{purpose}h/1h/0h"
    account = root.derive(path).to_public()
    account.version = NETWORKS["test"]["xpub"]
    origin = f"[{root.my_fingerprint.hex()}/{purpose}h/1h/0h]"
    return f"{script}({origin}{account.to_base58()}/{branch}/*)"


def airlock_addresses(run, descriptor: str) -> list[str]:
    report = inspect_descriptor(run, descriptor, COUNT)
    assert len(report["scripts"]) == COUNT
    return report["addresses"]


def embit_addresses(descriptor: str) -> list[str]:
    parsed = EmbitDescriptor.from_string(descriptor)
    return [parsed.derive(i).address(NETWORKS["regtest"]) for i in range(COUNT)]


def bdk_addresses(external: str, internal: str) -> list[str]:
    wallet = bdk.Wallet(
        bdk.Descriptor(external, bdk.NetworkKind.TEST),
        bdk.Descriptor(internal, bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )
    return [str(wallet.peek_address(bdk.KeychainKind.EXTERNAL, i).address) for i in range(COUNT)]


@pytest.mark.parametrize("script,purpose,prefix", [("wpkh", 84, "bcrt1q"), ("tr", 86, "bcrt1p")])
def test_receive_addresses_match_embit_and_bdk(run, script, purpose, prefix):
    external = account_descriptor(script, purpose, "0")
    internal = account_descriptor(script, purpose, "1")
    ours = airlock_addresses(run, external)
    assert all(address.startswith(prefix) for address in ours)
    assert len(set(ours)) == COUNT
    assert ours == embit_addresses(external)
    assert ours == bdk_addresses(external, internal)


def test_multipath_branches_match_single_path_descriptors(run):
    external = account_descriptor("wpkh", 84, "0")
    multipath = external.replace("/0/*)", "/<0;1>/*)")
    proc = run(
        "airlock-signer", "inspect", "-", "--json", "--count", "5", "--network", "regtest", input=multipath, check=True
    )
    report = json.loads(proc.stdout)
    assert len(report["paths"]) == 2
    assert report["paths"][0]["addresses"] == embit_addresses(external)[:5]
    change = EmbitDescriptor.from_string(account_descriptor("wpkh", 84, "1"))
    assert report["paths"][1]["addresses"] == [change.derive(i).address(NETWORKS["regtest"]) for i in range(5)]
    assert report["scripts"] == report["paths"][0]["scripts"]


def test_invalid_descriptor_exits_2(run):
    proc = run(
        "airlock-signer",
        "inspect",
        "-",
        input="wsh(wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd))",
    )
    assert proc.returncode == 2
    assert b"wpkh" in proc.stderr
