"""What the miniscript interop suites share (wsh and taproot leaves): cosigner keys built with embit, the addresses
`airlock-signer inspect` derives, and the same addresses from BDK (bdkpython, rust-miniscript inside) and embit."""

from __future__ import annotations

import json

import bdkpython as bdk
from embit import bip32
from embit.descriptor import Descriptor as EmbitDescriptor
from embit.networks import NETWORKS

COUNT = 25


def cosigner_keys(branch: str, count: int) -> list[str]:
    """`count` cosigners' `[fp/48h/1h/0h/2h]tpub…/BRANCH/*` keys, each from its own seed, built with embit."""
    keys = []
    for n in range(count):
        root = bip32.HDKey.from_seed(bytes([0x11 * (n + 1)]) * 32, version=NETWORKS["test"]["xprv"])
        account = root.derive("m/48h/1h/0h/2h").to_public()
        account.version = NETWORKS["test"]["xpub"]
        keys.append(f"[{root.my_fingerprint.hex()}/48h/1h/0h/2h]{account.to_base58()}/{branch}/*")
    return keys


def airlock_paths(run, text: str) -> list[list[str]]:
    """The addresses of each path (receive, change) `airlock-signer inspect` derives for `text`, COUNT each."""
    proc = run(
        "airlock-signer",
        "inspect",
        "-",
        "--json",
        "--count",
        str(COUNT),
        "--network",
        "regtest",
        input=text,
        check=True,
    )
    report = json.loads(proc.stdout)
    assert report["type"] == "descriptor"
    return [path["addresses"] for path in report["paths"]]


def bdk_addresses(external: str, internal: str) -> tuple[list[str], list[str]]:
    wallet = bdk.Wallet(
        bdk.Descriptor(external, bdk.NetworkKind.TEST),
        bdk.Descriptor(internal, bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )
    return tuple(
        [str(wallet.peek_address(keychain, i).address) for i in range(COUNT)]
        for keychain in (bdk.KeychainKind.EXTERNAL, bdk.KeychainKind.INTERNAL)
    )


def embit_addresses(text: str) -> list[str]:
    parsed = EmbitDescriptor.from_string(text)
    return [parsed.derive(i).address(NETWORKS["regtest"]) for i in range(COUNT)]
