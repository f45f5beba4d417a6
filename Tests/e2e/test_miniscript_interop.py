"""Miniscript interop (issue 17 item 4): the receive and change addresses `airlock-signer inspect` derives for the two
inheritance policies as `wsh()` descriptors with tpub keys (origins, `/<0;1>/*`) equal those of BDK (bdkpython,
rust-miniscript inside) and of embit, at several indexes; an insane miniscript is refused with exit code 2."""

from __future__ import annotations

import json

import bdkpython as bdk
import pytest
from embit import bip32
from embit.descriptor import Descriptor as EmbitDescriptor
from embit.networks import NETWORKS

COUNT = 25
POLICIES = {
    "inheritance": "wsh(or_d(multi(2,{0},{1},{2}),and_v(v:pk({3}),older(10))))",
    "decaying": "wsh(thresh(2,pk({0}),s:pk({1}),s:pk({2}),sln:older(12)))",
}


def cosigner_keys(branch: str) -> list[str]:
    """Four cosigners' `[fp/48h/1h/0h/2h]tpub…/BRANCH/*` keys, each from its own seed, built with embit."""
    keys = []
    for n in range(4):
        root = bip32.HDKey.from_seed(bytes([0x11 * (n + 1)]) * 32, version=NETWORKS["test"]["xprv"])
        account = root.derive("m/48h/1h/0h/2h").to_public()
        account.version = NETWORKS["test"]["xpub"]
        keys.append(f"[{root.my_fingerprint.hex()}/48h/1h/0h/2h]{account.to_base58()}/{branch}/*")
    return keys


def descriptor(policy: str, branch: str) -> str:
    return POLICIES[policy].format(*cosigner_keys(branch))


def airlock_paths(run, text: str) -> list[list[str]]:
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


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_receive_and_change_addresses_match_bdk_and_embit(run, policy):
    multipath = descriptor(policy, "<0;1>")
    receive, change = airlock_paths(run, multipath)
    assert len(receive) == COUNT and len(set(receive + change)) == 2 * COUNT
    assert all(address.startswith("bcrt1q") and len(address) == 64 for address in receive + change)
    external, internal = descriptor(policy, "0"), descriptor(policy, "1")
    assert (receive, change) == bdk_addresses(external, internal)
    assert receive == embit_addresses(external)
    assert change == embit_addresses(internal)
    # The single-path descriptors give the same addresses as the branches of the multipath one.
    assert airlock_paths(run, external) == [receive]


@pytest.mark.parametrize(
    "text,reason",
    [
        ("wsh(or_d(pk({0}),older(10)))", "no signature"),
        ("wsh(or_d(pk({0}),and_v(v:pk({0}),older(10))))", "more than once"),
        ("wsh(and_v(v:pk({0}),and_v(v:after(100),after(500000001))))", "mixes height and time"),
    ],
)
def test_insane_miniscript_is_refused_and_control_accepted(run, text, reason):
    keys = cosigner_keys("0")
    proc = run("airlock-signer", "inspect", "-", "--json", "--network", "regtest", input=text.format(*keys))
    assert proc.returncode == 2
    assert reason in json.loads(proc.stdout)["error"]["message"]
    control = f"wsh(or_d(pk({keys[0]}),and_v(v:pk({keys[1]}),older(10))))"
    assert airlock_paths(run, control)[0][:1]
