"""What the miniscript interop suites share (wsh and taproot leaves): cosigner keys built with embit, the addresses
`airlock-signer inspect` derives, and the same addresses from BDK (bdkpython, rust-miniscript inside) and embit."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import bdkpython as bdk
from embit import bip32, bip39
from embit.descriptor import Descriptor as EmbitDescriptor
from embit.networks import NETWORKS
from signer_psbt import branch

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


def inspect_descriptor(run, text: str, count: int = COUNT) -> dict:
    """`airlock-signer inspect - --json` of descriptor `text` on regtest, `count` addresses a path."""
    proc = run(
        "airlock-signer",
        "inspect",
        "-",
        "--json",
        "--count",
        str(count),
        "--network",
        "regtest",
        input=text,
        check=True,
    )
    report = json.loads(proc.stdout)
    assert report["type"] == "descriptor"
    return report


def airlock_paths(run, text: str) -> list[list[str]]:
    """The addresses of each path (receive, change) `airlock-signer inspect` derives for `text`, COUNT each."""
    return [path["addresses"] for path in inspect_descriptor(run, text)["paths"]]


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


def bdk_wallet(desc: str) -> bdk.Wallet:
    """BDK's in-memory wallet of a multipath (`/<0;1>/*`) descriptor, receive and change branches."""
    return bdk.Wallet(
        bdk.Descriptor(branch(desc, 0), bdk.NetworkKind.TEST),
        bdk.Descriptor(branch(desc, 1), bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )


def bdk_cosign(desc: str, key: str, mnemonic: str, unsigned: Path, out: Path) -> None:
    """BDK signs the PSBT file `unsigned` as the cosigner whose key expression in `desc` is `key`
    (`[fp/48h/1h/0h/2h]tpub…/…`): its tpub is replaced by the mnemonic's tprv at that origin. Writes `out`; no
    finalizing, so the caller checks what BDK added."""
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonic), version=NETWORKS["test"]["xprv"])
    tprv = root.derive("m/48h/1h/0h/2h").to_base58(NETWORKS["test"]["xprv"])
    wallet = bdk_wallet(desc.replace(key.split("]")[1].split("/")[0], tprv))
    psbt = bdk.Psbt(base64.b64encode(unsigned.read_bytes()).decode())
    options = bdk.SignOptions(
        trust_witness_utxo=False,
        assume_height=None,
        allow_all_sighashes=False,
        try_finalize=False,
        sign_with_tap_internal_key=False,
        allow_grinding=True,
    )
    wallet.sign(psbt, options)
    out.write_bytes(base64.b64decode(psbt.serialize()))
