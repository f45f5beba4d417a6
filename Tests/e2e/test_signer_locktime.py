"""Issue 26, class 7: what a transaction waits for is shown. PSBTs (and a Chance multisig: text) built with embit set
nLockTime and nSequence; the review and `sign --json` show the lock (`"locktime": {"height": N} | {"time": T} | null`)
and whether RBF is signalled, and a far lock is warned about. Each attack sits beside a control that signs quietly.

The chain's height is estimated offline from the clock (block 840,000 at 2024-04-20 12:09 UTC, 600 s a block): a
mainnet height lock more than 13,000 blocks past it, a test-network height past 5,000,000, and on every network a
time lock more than 90 days ahead get the warning.
"""

from __future__ import annotations

import json
import time

import pytest
from embit import bip32, script
from embit.networks import NETWORKS
from signer_psbt import Vault, embit_psbt
from test_chance_multisig import offline_spend
from test_signer_attacks import coin_for

REFERENCE_TIME = 1_713_614_940  # 2024-04-20 12:09 UTC, block 840,000


def estimated_height() -> int:
    return 840_000 + (int(time.time()) - REFERENCE_TIME) // 600


def stranger(network: str) -> str:
    net = NETWORKS[network]
    return script.p2wpkh(bip32.HDKey.from_seed(b"\x42" * 32).key.get_public_key()).address(net)


@pytest.fixture
def regtest(bin_dir, home):
    vault = Vault(bin_dir, home.env, home.root, "lock")
    vault.desc = vault.export("wpkh")
    return vault


@pytest.fixture
def mainnet(bin_dir, home):
    vault = Vault(bin_dir, home.env, home.root, "lockmain", network="main")
    vault.desc = vault.export("wpkh")
    return vault


def spend(vault, tmp_path, locktime: int, sequence: int = 0xFFFFFFFD, network: str = "regtest", name="lock.psbt"):
    psbt = embit_psbt(
        vault.desc,
        [coin_for(vault.desc, 0, 100_000)],
        [(stranger(network), 60_000)],
        change=(0, 39_000),
        sequence=sequence,
    )
    psbt.locktime = locktime
    path = tmp_path / name
    path.write_bytes(psbt.serialize())
    return path


def sign_json(vault, path) -> tuple[dict, str]:
    proc = vault.run("sign", str(path), "--yes", "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout), proc.stderr.decode()


def lock_warnings(out: dict) -> list[str]:
    return [w for w in out["warnings"] if "CANNOT BE MINED BEFORE" in w]


def test_far_height_lock_on_mainnet_is_shown_and_warned(mainnet, tmp_path):
    far = estimated_height() + 20_000  # about 139 days past the clock's height
    out, review = sign_json(mainnet, spend(mainnet, tmp_path, far, network="main"))
    assert out["locktime"] == {"height": far} and out["rbf"] is True
    assert len(lock_warnings(out)) == 1 and f"BLOCK {far}" in lock_warnings(out)[0]
    assert f"LOCK TIME: not before block {far:,}" in review and "from now" in review
    assert "THE TRANSACTION CANNOT BE MINED BEFORE BLOCK" in review
    # Control: the current height (what anti-fee-sniping wallets set) is shown, not warned about.
    near = estimated_height() - 3
    out, review = sign_json(mainnet, spend(mainnet, tmp_path, near, network="main", name="near.psbt"))
    assert out["locktime"] == {"height": near} and lock_warnings(out) == []
    assert f"LOCK TIME: not before block {near:,}" in review and "CANNOT BE MINED" not in review


def test_a_mainnet_height_lock_within_the_margin_is_not_warned(mainnet, tmp_path):
    """12,000 blocks ahead (inside the 13,000-block margin) is shown without the warning; 14,000 gets it."""
    inside = estimated_height() + 12_000
    out, _ = sign_json(mainnet, spend(mainnet, tmp_path, inside, network="main"))
    assert out["locktime"] == {"height": inside} and lock_warnings(out) == []
    outside = estimated_height() + 14_000
    out, _ = sign_json(mainnet, spend(mainnet, tmp_path, outside, network="main", name="outside.psbt"))
    assert len(lock_warnings(out)) == 1


def test_far_height_lock_on_regtest_is_warned(regtest, tmp_path):
    out, review = sign_json(regtest, spend(regtest, tmp_path, 50_000_000))
    assert out["locktime"] == {"height": 50_000_000} and len(lock_warnings(out)) == 1
    assert "LOCK TIME: not before block 50,000,000" in review and "far past any test chain" in review
    # Control: a regtest height is shown and signed quietly.
    out, review = sign_json(regtest, spend(regtest, tmp_path, 150, name="near.psbt"))
    assert out["locktime"] == {"height": 150} and lock_warnings(out) == []
    assert "LOCK TIME: not before block 150" in review


@pytest.mark.parametrize("network", ["regtest", "main"])
def test_far_time_lock_is_shown_as_a_date_and_warned(request, network, tmp_path):
    vault = request.getfixturevalue("mainnet" if network == "main" else "regtest")
    far = int(time.time()) + 200 * 86_400
    out, review = sign_json(vault, spend(vault, tmp_path, far, network=network))
    assert out["locktime"] == {"time": far}
    assert len(lock_warnings(out)) == 1
    day = time.strftime("%Y-%m-%d", time.gmtime(far))
    assert f"LOCK TIME: not before {day} " in review and " UTC (about 200 days from now)" in review
    # Controls: 30 days ahead and a time already passed are shown without the warning.
    for when, name in ((int(time.time()) + 30 * 86_400, "month.psbt"), (int(time.time()) - 86_400, "past.psbt")):
        out, review = sign_json(vault, spend(vault, tmp_path, when, network=network, name=name))
        assert out["locktime"] == {"time": when} and lock_warnings(out) == [], out["warnings"]
        assert "LOCK TIME: not before " + time.strftime("%Y-%m-%d", time.gmtime(when)) in review


def test_rbf_signal_and_no_lock_are_shown(regtest, tmp_path):
    out, review = sign_json(regtest, spend(regtest, tmp_path, 0, sequence=0xFFFFFFFD))
    assert out["locktime"] is None and out["rbf"] is True
    assert "LOCK TIME" not in review and "REPLACEABLE: yes" in review
    out, review = sign_json(regtest, spend(regtest, tmp_path, 0, sequence=0xFFFFFFFE, name="final.psbt"))
    assert out["locktime"] is None and out["rbf"] is False
    assert "REPLACEABLE: no (RBF not signalled)" in review


def test_a_lock_every_final_sequence_disables_is_still_shown(regtest, tmp_path):
    """nSequence 0xffffffff on every input makes nLockTime void: shown as not enforced (and still warned: an input
    added later could enforce it)."""
    out, review = sign_json(regtest, spend(regtest, tmp_path, 50_000_000, sequence=0xFFFFFFFF))
    assert out["locktime"] == {"height": 50_000_000} and out["rbf"] is False
    assert "not enforced while every input's sequence is final" in review


def test_chance_multisig_text_shows_its_far_lock(bin_dir, home, tmp_path):
    """The Chance multisig: path: the rawTx's nLockTime is reviewed like a PSBT's."""
    from test_chance_multisig import COSIGNER_PATH, NET

    a = Vault(bin_dir, home.env, home.root, "ca")
    b = Vault(bin_dir, home.env, home.root, "cb")
    c_root = bip32.HDKey.from_seed(b"\x07" * 32, version=NET["xprv"])
    c_xpub = c_root.derive(COSIGNER_PATH).to_public().to_base58(version=NET["xpub"])
    keys = [a.export("wsh-multi"), b.export("wsh-multi"), f"[{c_root.my_fingerprint.hex()}/48h/1h/0h/2h]{c_xpub}"]
    desc = "sh(sortedmulti(2," + ",".join(k + "/<0;1>/*" for k in keys) + "))"
    a.run("multisig", "register", "-", "--name", "chance", "--yes", input=desc.encode(), check=True)
    for locktime, warned in ((60_000_000, True), (200, False)):
        s = offline_spend(desc)
        s.tx.locktime = locktime
        (tmp_path / "prev.hex").write_text(s.prev_hex)
        text = "multisig:" + json.dumps(
            {"rawTx": s.tx.serialize().hex(), "redeemScriptHex": s.redeem.hex(), "keySignatures": {}}
        )
        (tmp_path / "chance.txt").write_text(text)
        proc = a.run("sign", str(tmp_path / "chance.txt"), "--prev-tx", str(tmp_path / "prev.hex"), "--yes", "--json")
        assert proc.returncode == 0, proc.stderr.decode()
        out = json.loads(proc.stdout)
        assert out["locktime"] == {"height": locktime} and out["rbf"] is True
        assert bool(lock_warnings(out)) is warned
        assert f"LOCK TIME: not before block {locktime:,}" in proc.stderr.decode()
