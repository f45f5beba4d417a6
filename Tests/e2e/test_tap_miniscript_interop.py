"""Taproot-leaf miniscript interop (issue 17 item 4, tapscript context): the receive and change addresses
`airlock-signer inspect` derives for inheritance policies in `tr()` leaves (tpub keys with origins, `/<0;1>/*`) equal
those of BDK (bdkpython, rust-miniscript inside) and of embit, 25 indexes each; `pk`/`multi_a` leaves keep their
meaning next to miniscript leaves; insane or wrong-context leaves are refused with exit code 2."""

from __future__ import annotations

import json

import descriptor_interop
import pytest
from descriptor_interop import COUNT, airlock_paths, bdk_addresses, embit_addresses

POLICIES = {
    # The heir's key after 10 blocks in one leaf, 2 of 3 cosigners at any time in the other.
    "timelocked_heir_or_multi_a": "tr({0},{{and_v(v:pk({1}),older(10)),multi_a(2,{2},{3},{4})}})",
    # 2 of 3 only after block 200 (an absolute lock on a multi_a leaf).
    "multi_a_after_height": "tr({0},and_v(v:multi_a(2,{1},{2},{3}),after(200)))",
    # A decaying 3-key multisig in one leaf, a plain pk leaf beside it, a thresh with d: (u under tapscript).
    "decaying_with_pk_leaf": "tr({0},{{thresh(2,pk({1}),s:pk({2}),s:pk({3}),sln:older(12)),pk({4})}})",
}


def cosigner_keys(branch: str) -> list[str]:
    return descriptor_interop.cosigner_keys(branch, 5)


def descriptor(policy: str, branch: str) -> str:
    return POLICIES[policy].format(*cosigner_keys(branch))


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_receive_and_change_addresses_match_bdk_and_embit(run, policy):
    multipath = descriptor(policy, "<0;1>")
    receive, change = airlock_paths(run, multipath)
    assert len(receive) == COUNT and len(set(receive + change)) == 2 * COUNT
    assert all(address.startswith("bcrt1p") and len(address) == 64 for address in receive + change)
    external, internal = descriptor(policy, "0"), descriptor(policy, "1")
    assert (receive, change) == bdk_addresses(external, internal)
    assert receive == embit_addresses(external)
    assert change == embit_addresses(internal)
    assert airlock_paths(run, external) == [receive]


def test_a_different_leaf_changes_every_address(run):
    """Control: the heir's lock at 11 blocks instead of 10 gives other addresses (the leaf script is committed)."""
    base = descriptor("timelocked_heir_or_multi_a", "0")
    other = base.replace("older(10)", "older(11)")
    assert not set(airlock_paths(run, base)[0]) & set(airlock_paths(run, other)[0])
    assert airlock_paths(run, other)[0] == embit_addresses(other)


@pytest.mark.parametrize(
    "text,reason",
    [
        ("tr({0},or_d(pk({1}),older(10)))", "no signature"),
        ("tr({0},or_d(pk({1}),and_v(v:pk({1}),older(10))))", "more than once"),
        ("tr({0},and_v(v:pk({1}),and_v(v:after(100),after(500000001))))", "mixes height and time"),
        ("tr({0},multi(2,{1},{2}))", "not available in Tapscript"),
        ("wsh(multi_a(2,{1},{2}))", "multi_a"),
    ],
)
def test_insane_or_wrong_context_leaf_is_refused_and_control_accepted(run, text, reason):
    keys = cosigner_keys("0")
    proc = run("airlock-signer", "inspect", "-", "--json", "--network", "regtest", input=text.format(*keys))
    assert proc.returncode == 2
    assert reason in json.loads(proc.stdout)["error"]["message"]
    control = f"tr({keys[0]},or_d(pk({keys[1]}),and_v(v:pk({keys[2]}),older(10))))"
    assert airlock_paths(run, control)[0] == embit_addresses(control)[:COUNT]
