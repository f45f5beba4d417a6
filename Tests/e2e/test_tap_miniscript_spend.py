"""A taproot-leaf miniscript inheritance wallet spent on regtest (issue 17 item 4, tapscript context), with the real
executables: `tr(H,{and_v(v:pk(DAD),older(10)),multi_a(2,ALICE,BOB,CAROL)})` (H: BIP341's unspendable internal
key) registered on the vaults (the policy shown in words per leaf), imported by the watcher, addresses equal to BDK's
and embit's; the primary leaf spent with a watcher-built PSBT (BIP371 leaf fields) signed by Alice and Bob on the
script path, finalized by the watcher and accepted by the node (libbitcoinkernel); the heir's leaf signed by Dad's
vault, finalized by the watcher with the leaf's satisfaction, refused by the node before the coin is 10 blocks old and
accepted after; BDK (rust-miniscript) finalizes the PSBT Dad's vault signed to the same transaction, and signs the
heir's leaf itself (Dad's xprv) for the watcher to finalize to the same txid. `send --recovery` builds the heir's spend: it
chooses leaf 1 and sets nSequence 10 (`--keys` mistakes refused, with a control). A cosigner's signature alone does not finalize the heir's
leaf (control). A second wallet, `tr(H,and_v(v:multi_a(2,A,B,C),after(N)))`, is spent at height N: refused by the
watcher's finalizer with nLockTime below N; `send --recovery` sets nLockTime N; refused by the node before the chain
reaches N, accepted then."""

from __future__ import annotations

import base64
import json

import bdkpython as bdk
from descriptor_interop import bdk_cosign
from embit.networks import NETWORKS
from embit.psbt import PSBT
from embit.transaction import Transaction
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Vault
from test_taproot_multisig import bdk_addresses, embit_addresses, register, tap_fields

NET = NETWORKS["regtest"]
H = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"


def inheritance(keys: list[str]) -> str:
    alice, bob, carol, dad = (k + "/<0;1>/*" for k in keys)
    return f"tr({H},{{and_v(v:pk({dad}),older(10)),multi_a(2,{alice},{bob},{carol})}})"


def test_taproot_leaf_miniscript_primary_and_heir_paths_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    names = ("alice", "bob", "carol", "dad")
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in names]
    keys = [v.export("wsh-multi") for v in vaults]
    desc = inheritance(keys)
    for v in vaults:
        reg = register(v, desc, "family")
        assert (reg["threshold"], reg["keys"], reg["script"]) == (0, 4, "tr")
    shown = vaults[3].run("multisig", "register", "-", "--name", "again", "--yes", input=desc.encode())
    review = shown.stderr.decode()
    dad_fp = vaults[3].fingerprint.hex()
    fps = [v.fingerprint.hex() for v in vaults[:3]]
    assert f"leaf 1: key {dad_fp} after 10 blocks (about 100 minutes)" in review, review
    assert f"leaf 2: 2 of key {fps[0]}, key {fps[1]}, key {fps[2]}" in review, review
    assert "key path: none (unspendable internal key, BIP341's H)" in review

    ours = embit_addresses(desc, 10)
    assert ours == bdk_addresses(desc, 10)
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "family", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    address = watcher.json("receive", "--new")["address"]
    assert address == ours[0][0]
    node.send_to(address, 300_000)
    node.mine(1)
    watcher("sync")
    assert watcher.balance()["confirmed"] == 300_000

    # Primary leaf: Alice and Bob sign the watcher's PSBT; the watcher finalizes; the node accepts.
    outside = outside_address()
    unsigned = tmp_path / "unsigned.psbt"
    sent = watcher.json("send", "--to", outside, "--amount", "100000sat", "--fee-rate", "5", "--out", unsigned)
    fields = tap_fields(unsigned.read_bytes())
    assert len(fields) == 1 and len(fields[0]["leaf_scripts"]) == 2
    assert len(fields[0]["derivations"]) == 4
    alice_file, bob_file = tmp_path / "alice.psbt", tmp_path / "bob.psbt"
    alice = json.loads(vaults[0].sign(unsigned, args=("--full", "--out", str(alice_file), "--json")).stdout)
    assert alice["verdict"] == "signed" and alice["signed_inputs"] == [0]
    # The change back to the registered tree (re-derived from the PSBT's BIP371 output fields) is change.
    assert [o["change"] for o in alice["outputs"] if not o["external"]] == [True], alice["outputs"]
    bob = json.loads(vaults[1].sign(alice_file, args=("--full", "--out", str(bob_file), "--json")).stdout)
    assert bob["verdict"] == "signed"
    final = watcher.json("finalize", bob_file, "--out", tmp_path / "final.psbt")
    items = Transaction.parse(bytes.fromhex(final["transaction"])).vin[0].witness.items
    assert len(items) == 5 and sorted(len(i) for i in items[:3]) == [0, 64, 64]
    assert len(items[-1]) == 65  # control block: two leaves, one sibling hash
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    # The fee estimate counts the costliest leaf's witness: the fee rate paid is at least the one asked for.
    vsize = node.cli("decoderawtransaction", final["transaction"])["vsize"]
    assert 5 * vsize <= sent["fee"] <= 8 * vsize, (vsize, sent["fee"])
    txid = watcher("broadcast", bob_file).stdout.decode().strip()
    assert txid == sent["txid"]
    node.mine(1)
    assert outside_holds(node, outside) == [(txid, 100_000)]
    watcher("sync")

    coin_height = node.height()  # the change coin, the heir's leaf's coin, confirmed here
    # Without --recovery a send sets no timelock: nSequence keeps its disable bit (0xfffffffd, RBF).
    primary = tmp_path / "primary2.psbt"
    watcher.json("send", "--to", outside_address(), "--amount", "50000sat", "--fee-rate", "5", "--out", primary)
    assert PSBT.parse(primary.read_bytes()).tx.vin[0].sequence == 0xFFFFFFFD

    # --keys mistakes (exit 2): Alice and Bob spend leaf 2 without a timelock (the primary path); Carol alone
    # cannot spend at all; an unknown fingerprint. Control: Dad's fingerprint gives the heir's leaf.
    for bad, reason in (
        (f"{fps[0]},{fps[1]}", b"that is the primary path"),
        (fps[2], b"cannot spend under this policy"),
        ("99999999", b"is no key fingerprint of this policy"),
    ):
        mistake = watcher(
            "send", "--to", outside_address(), "--amount", "50000sat", "--fee-rate", "5", "--recovery", "--keys", bad,
            "--out", tmp_path / "mistake.psbt", check=False,
        )  # fmt: skip
        assert mistake.returncode == 2 and reason in mistake.stderr, mistake.stderr
        assert not (tmp_path / "mistake.psbt").exists()

    # Heir's leaf: `send --recovery` picks leaf 1 (Dad alone after 10 blocks) and sets nSequence 10 itself.
    heir_to = outside_address()
    locked = tmp_path / "locked.psbt"
    rec = watcher.json(
        "send", "--to", heir_to, "--amount", "50000sat", "--fee-rate", "5", "--recovery", "--out", locked
    )
    info = rec["recovery"]
    assert info["leaf"] == 1 and info["signers"] == [dad_fp]
    assert info["relative_timelock"] == 10 and info["sequence"] == 10 and info["absolute_timelock"] is None
    assert info["valid_from_height"] == coin_height + 9 and info["tip_height"] == node.height()
    # The lock fields came from the watcher: the PSBT's nSequence is the leaf's older(10), version 2.
    built = PSBT.parse(locked.read_bytes())
    assert built.tx.vin[0].sequence == 10 and built.tx.version == 2
    # The leaf fields stay for both leaves (docs/miniscript.md): the signers sign the leaves holding their keys.
    assert len(tap_fields(locked.read_bytes())[0]["leaf_scripts"]) == 2
    # --keys with Dad's fingerprint chooses the same leaf; the stderr names it and says from when it is valid.
    named = watcher(
        "send", "--to", heir_to, "--amount", "50000sat", "--fee-rate", "5", "--recovery", "--keys", dad_fp,
        "--out", tmp_path / "named.psbt",
    )  # fmt: skip
    words = named.stderr.decode()
    assert f"recovery path: leaf 1, signed by {dad_fp}, older(10) → nSequence 10" in words, words
    assert f"NOT VALID YET: the node accepts it from height {coin_height + 9}" in words, words

    # Control: Carol's signature is for the multi_a leaf only and finalizes nothing alone.
    carol_file = tmp_path / "carol.psbt"
    vaults[2].sign(locked, args=("--full", "--out", str(carol_file), "--json"))
    refused = watcher("finalize", carol_file, "--json", check=False)
    assert refused.returncode != 0

    dad_file = tmp_path / "dad.psbt"
    dad = json.loads(vaults[3].sign(locked, args=("--full", "--out", str(dad_file), "--json")).stdout)
    assert dad["verdict"] == "signed" and dad["signed_inputs"] == [0]
    sigs = tap_fields(dad_file.read_bytes())[0]["script_sigs"]
    assert len(sigs) == 1  # Dad's key is in the heir's leaf only
    heir = watcher.json("finalize", dad_file, "--out", tmp_path / "heir.psbt")
    heir_tx = Transaction.parse(bytes.fromhex(heir["transaction"]))
    assert heir_tx.vin[0].sequence == 10
    heir_items = heir_tx.vin[0].witness.items
    assert len(heir_items) == 3 and len(heir_items[0]) == 64 and heir_items[1].endswith(bytes([0xAD, 0x5A, 0xB2]))
    # BDK (rust-miniscript) finalizes the PSBT Dad's vault signed to the same transaction.
    by_bdk = bdk.Psbt(base64.b64encode(dad_file.read_bytes()).decode()).finalize()
    assert by_bdk.could_finalize, by_bdk.errors
    assert bytes(by_bdk.psbt.extract_tx().serialize()).hex() == heir["transaction"]
    # BDK signs the heir's leaf with Dad's xprv; the watcher finalizes that PSBT to the same txid.
    bdk_file = tmp_path / "bdk-dad.psbt"
    bdk_cosign(desc, keys[3], vaults[3].mnemonic, locked, bdk_file)
    assert len(tap_fields(bdk_file.read_bytes())[0]["script_sigs"]) == 1, "BDK signed nothing"
    assert watcher.json("finalize", bdk_file, "--out", tmp_path / "bdk-heir.psbt")["txid"] == heir["txid"]
    early = node.cli("testmempoolaccept", [heir["transaction"]])[0]
    assert not early["allowed"] and "non-BIP68-final" in early["reject-reason"], early
    node.mine(info["valid_from_height"] - node.height() - 1)  # the coin has 9 confirmations: still too young
    assert not node.cli("testmempoolaccept", [heir["transaction"]])[0]["allowed"]
    node.mine(1)  # 10 confirmations: the tip is the height `send --recovery` announced
    assert node.cli("testmempoolaccept", [heir["transaction"]])[0]["allowed"]
    heir_txid = node.cli("sendrawtransaction", heir["transaction"])
    node.mine(1)
    assert outside_holds(node, heir_to) == [(heir_txid, 50_000)]


def test_taproot_leaf_multi_a_after_height_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    """`tr(H,and_v(v:multi_a(2,A,B,C),after(N)))`: two vaults sign; with the watcher's own nLockTime (below N, a send
    without --recovery) the watcher refuses to finalize and names the lock; `send --recovery` sets nLockTime N; the
    node refuses that spend until the chain reaches N, then accepts it."""
    node = regtest_node
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in ("ann", "ben", "cat")]
    keys = [v.export("wsh-multi") + "/<0;1>/*" for v in vaults]
    node.send_to(outside_address(), 10_000)  # the faucet's first use mines its coins
    node.mine(1)
    lock = node.height() + 6
    desc = f"tr({H},and_v(v:multi_a(2,{keys[0]},{keys[1]},{keys[2]}),after({lock})))"
    for v in vaults[:2]:
        register(v, desc, "locked")
    assert embit_addresses(desc, 5) == bdk_addresses(desc, 5)
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "locked", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    node.send_to(watcher.json("receive", "--new")["address"], 200_000)
    node.mine(1)
    watcher("sync")
    outside = outside_address()
    unsigned = tmp_path / "unsigned.psbt"
    watcher.json("send", "--to", outside, "--amount", "60000sat", "--fee-rate", "5", "--out", unsigned)
    assert PSBT.parse(unsigned.read_bytes()).locktime < lock  # the watcher's anti-fee-sniping height

    def signed(source: bytes, name: str):
        path = tmp_path / f"{name}.psbt"
        path.write_bytes(source)
        first, second = tmp_path / f"{name}-a.psbt", tmp_path / f"{name}-b.psbt"
        vaults[0].sign(path, args=("--full", "--out", str(first), "--json"))
        vaults[1].sign(first, args=("--full", "--out", str(second), "--json"))
        return second

    # Attack on the lock: the signatures are there but nLockTime is below N; the watcher names what is missing.
    early = watcher("finalize", signed(unsigned.read_bytes(), "early"), "--json", check=False)
    assert early.returncode == 2
    assert f"after({lock})" in json.loads(early.stdout)["error"]["message"]

    # `send --recovery`: the leaf's after(N) sets nLockTime N (the default rule: the first two keys sign).
    recovered = tmp_path / "recovery.psbt"
    rec = watcher.json(
        "send", "--to", outside, "--amount", "60000sat", "--fee-rate", "5", "--recovery", "--out", recovered
    )["recovery"]
    assert rec["leaf"] == 1 and rec["signers"] == [v.fingerprint.hex() for v in vaults[:2]]
    assert rec["absolute_timelock"] == lock and rec["locktime"] == lock and rec["relative_timelock"] is None
    assert rec["valid_from_height"] == lock and rec["tip_height"] < lock
    assert PSBT.parse(recovered.read_bytes()).locktime == lock  # set by the watcher, not by this test
    ready = signed(recovered.read_bytes(), "ready")
    final = watcher.json("finalize", ready, "--out", tmp_path / "final.psbt")
    tx = Transaction.parse(bytes.fromhex(final["transaction"]))
    assert tx.locktime == lock and len(tx.vin[0].witness.items) == 5
    while node.height() < lock - 1:
        node.mine(1)
    refused = node.cli("testmempoolaccept", [final["transaction"]])[0]
    assert not refused["allowed"] and "non-final" in refused["reject-reason"], refused
    node.mine(1)  # the tip is now N: a transaction with nLockTime N can be in the next block
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    txid = node.cli("sendrawtransaction", final["transaction"])
    node.mine(1)
    assert outside_holds(node, outside) == [(txid, 60_000)]
