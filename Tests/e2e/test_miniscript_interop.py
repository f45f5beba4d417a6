"""Miniscript interop (issue 17 item 4): the receive and change addresses `airlock-signer inspect` derives for the two
inheritance policies as `wsh()` descriptors with tpub keys (origins, `/<0;1>/*`) equal those of BDK (bdkpython,
rust-miniscript inside) and of embit, at several indexes; an insane miniscript is refused with exit code 2."""

from __future__ import annotations

import json

import descriptor_interop
import pytest
from descriptor_interop import COUNT, airlock_paths, bdk_addresses, embit_addresses

POLICIES = {
    "inheritance": "wsh(or_d(multi(2,{0},{1},{2}),and_v(v:pk({3}),older(10))))",
    "decaying": "wsh(thresh(2,pk({0}),s:pk({1}),s:pk({2}),sln:older(12)))",
}


def cosigner_keys(branch: str) -> list[str]:
    return descriptor_interop.cosigner_keys(branch, 4)


def descriptor(policy: str, branch: str) -> str:
    return POLICIES[policy].format(*cosigner_keys(branch))


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
