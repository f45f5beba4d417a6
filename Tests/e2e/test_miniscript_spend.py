"""Miniscript policy wallets spent on the regtest node (issue 17 item 4), with the real executables.

Two policies over keys of four Airlock vaults (`export --script wsh-multi`, origins `48h/1h/0h/2h`): the inheritance
wallet P1 `wsh(or_d(multi(2,A,B,C),and_v(v:pk(D),older(10))))` and the decaying multisig P2
`wsh(thresh(2,pk(A),s:pk(B),s:pk(C),sln:older(12)))`. Each is registered on the signers (the policy shown in
words), imported by the watcher, funded, spent on the primary path by two cosigners (accepted by the node:
libbitcoinkernel judges the scripts), and on the recovery path (`send --recovery`): one key, refused by the node as
non-BIP68-final until the coin has the policy's confirmations, then accepted. BDK (bdkpython, rust-miniscript) signs
the same PSBT for one cosigner and finalizes it; its transaction is accepted like the watcher's. Attacks on the
signer's checks (a coin of another policy of the same keys, a witness script that is not the coin's, change to
another policy of the same keys), each with its control, use PSBTs embit builds.
"""

from __future__ import annotations

import base64
import json
import os

import bdkpython as bdk
import pytest
from descriptor_interop import bdk_cosign
from embit import bip39
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.psbt import PSBT, DerivationPath
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Coin, Vault, embit_psbt

NET = NETWORKS["regtest"]
P1 = "wsh(or_d(multi(2,{0},{1},{2}),and_v(v:pk({3}),older({4}))))"
P2 = "wsh(thresh(2,pk({0}),s:pk({1}),s:pk({2}),sln:older({3})))"


def ranged(keys: list[str]) -> list[str]:
    return [k + "/<0;1>/*" for k in keys]


def vaults_and_keys(bin_dir, home, names: tuple[str, ...]) -> tuple[list[Vault], list[str]]:
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in names]
    return vaults, [v.export("wsh-multi") for v in vaults]


def register(vault: Vault, desc: str, name: str):
    return vault.run("multisig", "register", "-", "--name", name, "--yes", "--json", input=desc.encode())


def fp(vault: Vault) -> str:
    return vault.fingerprint.hex()


def watcher_for(run, node, desc: str, name: str) -> Watcher:
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", name, "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    return watcher


def fund(watcher: Watcher, node, amounts: list[int]) -> list[str]:
    """Pays each amount to a new receive address, mines one block, syncs; returns the outpoints."""
    outpoints = []
    for amount in amounts:
        address = watcher.json("receive", "--new")["address"]
        txid = node.send_to(address, amount)
        tx = node.cli("getrawtransaction", txid, 1)
        vout = next(o["n"] for o in tx["vout"] if o["scriptPubKey"].get("address") == address)
        outpoints.append(f"{txid}:{vout}")
    node.mine(1)
    watcher("sync")
    return outpoints


def sign(vault: Vault, psbt_file, out_file, *extra: str, full: bool = True) -> tuple[dict, str]:
    proc = vault.sign(psbt_file, args=(*(("--full",) if full else ()), "--out", str(out_file), "--json", *extra))
    return json.loads(proc.stdout), proc.stderr.decode()


def witness_sizes(tx_hex: str) -> list[list[int]]:
    tx = Transaction.parse(bytes.fromhex(tx_hex))
    return [[len(item) for item in vin.witness.items] for vin in tx.vin]


def spend_policy(run, bin_dir, home, node, tmp_path, policy: str):
    """The whole flow for one policy: registration words, primary path, recovery path refused then accepted."""
    if policy == "p1":
        vaults, keys = vaults_and_keys(bin_dir, home, ("alice", "bob", "carol", "dad"))
        lock = 10
        desc = P1.format(*ranged(keys), lock)
        primary_signers, recovery_signer, keys_option = vaults[:2], vaults[3], ()
    else:
        vaults, keys = vaults_and_keys(bin_dir, home, ("kim", "lee", "max"))
        lock = 12
        desc = P2.format(*ranged(keys), lock)
        # --keys names who signs the recovery path (Max; by the default rule it would be Kim, the first key).
        primary_signers, recovery_signer, keys_option = [vaults[1], vaults[2]], vaults[2], ("--keys", fp(vaults[2]))

    # Registration shows the policy in words, this vault's key named.
    for v in vaults:
        proc = register(v, desc, policy)
        assert proc.returncode == 0, proc.stderr
        reg = json.loads(proc.stdout)
        assert reg["script"] == "wsh" and reg["threshold"] == 0 and reg["keys"] == len(vaults)
        review = proc.stderr.decode()
        if policy == "p1":
            others = [f"key {fp(x)}" if x is not v else f"this vault ({fp(v)})" for x in vaults]
            words = f"2 of {others[0]}, {others[1]}, {others[2]}; or {others[3]} after 10 blocks (about 100 minutes)"
        else:
            names = [f"key {fp(x)}" if x is not v else f"this vault ({fp(v)})" for x in vaults]
            words = f"2 of {', '.join(names)}; or 1 of {', '.join(names)} after 12 blocks (about 2 hours)"
        assert f"  policy: {words}" in review, review
        assert reg["policy"] == words.replace(f"this vault ({fp(v)})", f"key {fp(v)}")

    watcher = watcher_for(run, node, desc, policy)
    first, second = fund(watcher, node, [300_000, 200_000])
    funded_height = node.height()

    # Primary path: two cosigners, nSequence 0xfffffffd (no timelock).
    outside = outside_address()
    unsigned = tmp_path / f"{policy}-primary.psbt"
    sent = watcher.json(
        "send", "--to", outside, "--amount", "100000sat", "--fee-rate", "2", "--utxo", first, "--out", unsigned
    )
    parsed = PSBT.parse(unsigned.read_bytes())
    assert parsed.tx.version == 2
    for inp in parsed.inputs:
        assert inp.non_witness_utxo is not None and inp.witness_utxo is not None
        assert inp.witness_script is not None and len(inp.bip32_derivations) == len(vaults)
        assert inp.sequence in (None, 0xFFFFFFFD) and parsed.tx.vin[0].sequence == 0xFFFFFFFD
    change_outputs = [o for o in parsed.outputs if o.witness_script is not None]
    assert len(change_outputs) == 1 and len(change_outputs[0].bip32_derivations) == len(vaults)

    one, review = sign(primary_signers[0], unsigned, tmp_path / f"{policy}-one.psbt")
    assert one["verdict"] == "signed" and one["complete"] is False
    assert [o["change"] for o in one["outputs"] if not o["external"]] == [True], one["outputs"]
    state = one["policy"][0]
    assert (state["path"], state["signed_by"], state["complete_with_this_vault"]) == ("primary", [], False)
    assert "POLICY PATHS (miniscript, before this vault signs):" in review
    assert "primary path (nSequence 4294967293" in review, review
    two, review = sign(primary_signers[1], tmp_path / f"{policy}-one.psbt", tmp_path / f"{policy}-two.psbt")
    assert two["verdict"] == "signed" and two["complete"] is True
    assert two["policy"][0]["signed_by"] == [fp(primary_signers[0])]
    done = f"with this vault's signature: complete: {fp(primary_signers[0])}, this vault ({fp(primary_signers[1])})"
    assert f"{done} with no timelock" in review, review
    shown = watcher("inspect", tmp_path / f"{policy}-two.psbt").stdout.decode()
    assert f"policy '{policy}': signed by " in shown and "; can be finalized now" in shown, shown
    final = watcher.json("finalize", tmp_path / f"{policy}-two.psbt", "--out", tmp_path / f"{policy}-final.psbt")
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    txid = watcher("broadcast", tmp_path / f"{policy}-two.psbt").stdout.decode().strip()
    assert txid == sent["txid"]
    node.mine(1)
    assert outside_holds(node, outside) == [(txid, 100_000)]
    watcher("sync")

    # Recovery path: built early (the coin has 2 confirmations), valid once it has `lock`.
    recovery = tmp_path / f"{policy}-recovery.psbt"
    rec = watcher.json(
        "send", "--to", outside, "--max", "--fee-rate", "2", "--utxo", second, "--recovery", *keys_option,
        "--out", recovery,
    )  # fmt: skip
    info = rec["recovery"]
    assert info["signers"] == [fp(recovery_signer)]
    assert info["relative_timelock"] == lock and info["sequence"] == lock and info["absolute_timelock"] is None
    assert info["valid_from_height"] == funded_height + lock - 1
    assert info["tip_height"] == node.height() < info["valid_from_height"]
    text = watcher(
        "send", "--to", outside, "--max", "--fee-rate", "2", "--utxo", second, "--recovery", *keys_option,
        "--dry-run",
    )  # fmt: skip
    assert text.returncode == 0
    assert PSBT.parse(recovery.read_bytes()).tx.vin[0].sequence == lock

    # Nobody has signed: finalize says so (exit 2).
    unsigned_final = watcher("finalize", recovery, check=False)
    assert (
        unsigned_final.returncode == 2 and b"not signed yet: sign it with airlock-signer first" in unsigned_final.stderr
    )

    signed_file = tmp_path / f"{policy}-recovery-signed.psbt"
    # Without --full: this signature completes the input, so the answer is trimmed (the watcher adds its kept copy).
    signed, review = sign(recovery_signer, recovery, signed_file, full=False)
    assert PSBT.parse(signed_file.read_bytes()).inputs[0].witness_script is None
    assert signed["verdict"] == "signed" and signed["complete"] is True
    assert signed["policy"][0]["path"] == "recovery" and signed["policy"][0]["enabled_timelocks"] == [f"older({lock})"]
    assert f"RECOVERY PATH: nSequence {lock}, nLockTime " in review, review
    assert f"complete: this vault ({fp(recovery_signer)}) after {lock} blocks" in review, review

    final = watcher.json("finalize", signed_file, "--out", tmp_path / f"{policy}-recovery-final.psbt")
    # The signer's own --finalize gives the same transaction (deterministic RFC6979 signatures, the same satisfier).
    tx_out = tmp_path / f"{policy}-signer-tx.hex"
    recovery_signer.sign(recovery, args=("--finalize", "--tx-out", str(tx_out), "--out", str(tmp_path / "again.psbt")))
    assert tx_out.read_text().strip() == final["transaction"]
    assert len(witness_sizes(final["transaction"])[0]) >= 2
    # Before the coin has `lock` confirmations the node refuses it (BIP68), with its reason; one block short too.
    early = watcher("broadcast", signed_file, check=False)
    assert early.returncode == 5, early.stderr
    assert b"non-BIP68-final" in early.stderr and b"timelock of this transaction is not met yet" in early.stderr
    node.mine(info["valid_from_height"] - node.height() - 1)
    assert not node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    node.mine(1)
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    txid = watcher("broadcast", signed_file).stdout.decode().strip()
    assert txid == rec["txid"]
    # A fee bump of the recovery spend keeps its relative timelock (else it would be a primary-path transaction).
    watcher("sync")
    bumped = tmp_path / f"{policy}-bump.psbt"
    watcher("bump", txid, "--fee-rate", "5", "--out", bumped)
    # --max left no change: the bump adds the wallet's other coin, with the same lock.
    assert [vin.sequence for vin in PSBT.parse(bumped.read_bytes()).tx.vin] == [lock, lock]
    bump_signed = tmp_path / f"{policy}-bump-signed.psbt"
    assert sign(recovery_signer, bumped, bump_signed)[0]["complete"] is True
    node.mine(1)
    watcher("sync")
    assert watcher.balance()["confirmed"] == 300_000 - 100_000 - sent["fee"]
    return vaults, keys, desc, watcher


def test_inheritance_policy_primary_and_recovery_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    spend_policy(run, bin_dir, home, regtest_node, tmp_path, "p1")


def test_decaying_multisig_primary_and_recovery_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    spend_policy(run, bin_dir, home, regtest_node, tmp_path, "p2")


def test_recovery_key_on_the_primary_path_cannot_finalize(run, home, bin_dir, regtest_node, tmp_path):
    """Dad signs a primary-path PSBT (nSequence 0xfffffffd): his review says it stays incomplete, and the finalizer
    says which timelock his signature's path needs (exit 2); `send --recovery` on a plain multisig is refused."""
    node = regtest_node
    vaults, keys = vaults_and_keys(bin_dir, home, ("ann", "ben", "cat", "don"))
    desc = P1.format(*ranged(keys), 10)
    assert register(vaults[3], desc, "heirs").returncode == 0
    watcher = watcher_for(run, node, desc, "heirs")
    fund(watcher, node, [250_000])
    unsigned = tmp_path / "primary.psbt"
    watcher.json("send", "--to", outside_address(), "--amount", "50000sat", "--fee-rate", "2", "--out", unsigned)
    signed, review = sign(vaults[3], unsigned, tmp_path / "dad.psbt")
    assert signed["verdict"] == "signed" and signed["complete"] is False
    assert "still incomplete" in review, review
    shown = watcher("inspect", tmp_path / "dad.psbt").stdout.decode()
    assert f"policy 'heirs': signed by {fp(vaults[3])}; cannot be finalized yet: timelock not met" in shown, shown
    final = watcher("finalize", tmp_path / "dad.psbt", check=False)
    assert final.returncode == 2, final.stderr
    assert b"timelock not met" in final.stderr and b"older(10)" in final.stderr, final.stderr
    bad_keys = watcher(
        "send", "--to", outside_address(), "--max", "--fee-rate", "2", "--recovery", "--keys", fp(vaults[0]),
        "--out", tmp_path / "x.psbt", check=False,
    )  # fmt: skip
    assert bad_keys.returncode == 2 and b"cannot spend under this policy" in bad_keys.stderr, bad_keys.stderr
    primary_keys = watcher(
        "send", "--to", outside_address(), "--max", "--fee-rate", "2", "--recovery", "--keys",
        f"{fp(vaults[0])},{fp(vaults[1])}", "--out", tmp_path / "y.psbt", check=False,
    )  # fmt: skip
    assert primary_keys.returncode == 2 and b"that is the primary path" in primary_keys.stderr


@pytest.mark.parametrize("policy", ["p1", "p2"])
def test_bdk_signs_and_finalizes_the_policy_psbt(run, home, bin_dir, regtest_node, tmp_path, policy):
    """BDK signs the watcher's P1 PSBT for Carol's key (her tprv in its descriptor), Airlock for Alice's; the
    watcher's and BDK's finalized transactions have the same witness, and the node accepts it. For P2, BDK signs
    for Lee after Kim: again the same transaction."""
    node = regtest_node
    mnemonics = [bip39.mnemonic_from_bytes(os.urandom(16)) for _ in range(4)]
    names = [f"{policy}-{n}" for n in range(4)]
    vaults = [Vault(bin_dir, home.env, home.root, n, mnemonic=m) for n, m in zip(names, mnemonics)]
    keys = [v.export("wsh-multi") for v in vaults]
    desc = P1.format(*ranged(keys), 10) if policy == "p1" else P2.format(*ranged(keys[:3]), 12)
    assert register(vaults[0], desc, "bdk").returncode == 0
    watcher = watcher_for(run, node, desc, f"bdk{policy}")
    fund(watcher, node, [300_000])
    unsigned = tmp_path / f"{policy}-unsigned.psbt"
    sent = watcher.json(
        "send", "--to", outside_address(), "--amount", "100000sat", "--fee-rate", "2", "--out", unsigned
    )
    ours, _ = sign(vaults[0], unsigned, tmp_path / f"{policy}-airlock.psbt")
    assert ours["verdict"] == "signed"

    cosigner = 2 if policy == "p1" else 1
    both = tmp_path / f"{policy}-both.psbt"
    bdk_cosign(desc, keys[cosigner], mnemonics[cosigner], tmp_path / f"{policy}-airlock.psbt", both)
    assert all(len(i.partial_sigs) == 2 for i in PSBT.parse(both.read_bytes()).inputs), "BDK signed nothing"

    final = watcher.json("finalize", both, "--out", tmp_path / f"{policy}-final.psbt")
    assert final["txid"] == sent["txid"]
    finalized = bdk.Psbt(base64.b64encode(both.read_bytes()).decode()).finalize()
    assert finalized.could_finalize, finalized.errors
    bdk_tx = bytes(finalized.psbt.extract_tx().serialize()).hex()
    assert witness_sizes(bdk_tx) == witness_sizes(final["transaction"])
    assert bdk_tx == final["transaction"]
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    assert watcher("broadcast", both).stdout.decode().strip() == sent["txid"]
    node.mine(1)


# --- the signer's checks, attack and control, on PSBTs embit builds (no node) -------------------------------------


def funding(desc: str, index: int, value: int = 500_000, change: bool = False) -> Transaction:
    d = Descriptor.from_string(desc)
    spk = d.derive(index, branch_index=1 if change else 0).script_pubkey()
    return Transaction(version=2, vin=[TransactionInput(os.urandom(32), 0)], vout=[TransactionOutput(value, spk)])


def test_signer_refuses_a_coin_of_another_policy_of_the_same_keys(bin_dir, home, tmp_path):
    """Attack: the PSBT spends a coin of a policy with the same keys but Dad's lock at 1 block (a look-alike of the
    registered wallet; signing it would help spend coins the user never registered). Control: the registered one."""
    vaults, keys = vaults_and_keys(bin_dir, home, ("ema", "fay", "gus", "hal"))
    desc = P1.format(*ranged(keys), 10)
    other = P1.format(*ranged(keys), 1)
    assert register(vaults[3], desc, "heirs").returncode == 0
    outside = outside_address()
    for policy, expect in ((other, 4), (desc, 0)):
        psbt = embit_psbt(policy, [Coin(funding(policy, 2), 0, 2)], [(outside, 400_000)], sequence=10)
        path = tmp_path / "p.psbt"
        path.write_bytes(psbt.serialize())
        proc = vaults[3].sign(path, args=("--json", "--out", str(tmp_path / "o.psbt")), check=False)
        assert proc.returncode == expect, proc.stderr
        if expect:
            assert "refused" in json.loads(proc.stdout)["verdict"]
            assert b"registered" in proc.stderr
        else:
            assert json.loads(proc.stdout)["policy"][0]["path"] == "recovery"


def test_signer_refuses_a_witness_script_that_is_not_the_coins(bin_dir, home, tmp_path):
    """Attack: the coin is the registered wallet's, but the input's witness script is the primary branch of another
    policy (a script whose hash is not the output's). Control: the wallet's own witness script."""
    vaults, keys = vaults_and_keys(bin_dir, home, ("ida", "jon", "kai", "liv"))
    desc = P1.format(*ranged(keys), 10)
    other = P1.format(*ranged(keys), 1)
    assert register(vaults[0], desc, "heirs").returncode == 0
    for tamper, expect in ((True, 2), (False, 0)):
        psbt = embit_psbt(desc, [Coin(funding(desc, 0), 0, 0)], [(outside_address(), 400_000)])
        if tamper:
            psbt.inputs[0].witness_script = Descriptor.from_string(other).derive(0, branch_index=0).witness_script()
        path = tmp_path / "p.psbt"
        path.write_bytes(psbt.serialize())
        proc = vaults[0].sign(path, args=("--json", "--out", str(tmp_path / "o.psbt")), check=False)
        assert proc.returncode == expect, proc.stderr
        if tamper:
            assert b"witnessScript does not match the scriptPubKey" in proc.stderr, proc.stderr
        else:
            assert json.loads(proc.stdout)["verdict"] == "signed"


def test_change_to_another_policy_of_the_same_keys_is_external(bin_dir, home, tmp_path):
    """Attack: the 'change' pays the same keys under another policy (Dad alone after 1 block, not 10): shown as an
    external payment. Control: the wallet's own change output is change."""
    vaults, keys = vaults_and_keys(bin_dir, home, ("mia", "ned", "oli", "pam"))
    desc = P1.format(*ranged(keys), 10)
    other = P1.format(*ranged(keys), 1)
    assert register(vaults[0], desc, "heirs").returncode == 0
    for change_desc, is_change in ((other, False), (desc, True)):
        psbt = embit_psbt(desc, [Coin(funding(desc, 0), 0, 0)], [(outside_address(), 100_000)], change=(0, 399_000))
        d = Descriptor.from_string(change_desc).derive(0, branch_index=1)
        scope = psbt.outputs[-1]
        scope.script_pubkey = d.script_pubkey()
        scope.witness_script = d.witness_script()
        scope.bip32_derivations = {
            key.get_public_key(): DerivationPath(key.origin.fingerprint, key.origin.derivation) for key in d.keys
        }
        path = tmp_path / "p.psbt"
        path.write_bytes(psbt.serialize())
        proc = vaults[0].sign(path, args=("--json", "--out", str(tmp_path / "o.psbt")), check=False)
        out = json.loads(proc.stdout)
        last = out["outputs"][-1]
        assert (last["change"], last["external"]) == (is_change, not is_change), out
        assert out["sent"] == (100_000 if is_change else 499_000)


def test_nested_sh_wsh_policy_primary_path_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    """`sh(wsh(MINISCRIPT))`: registered, imported, spent on the primary path by two vaults (the redeem script in the
    scriptSig, the policy's witness), accepted by the node; the watcher's inspect reads the PSBT."""
    node = regtest_node
    vaults, keys = vaults_and_keys(bin_dir, home, ("rae", "sam", "tia", "uma"))
    desc = "sh(" + P1.format(*ranged(keys), 10) + ")"
    for v in vaults[:2]:
        proc = register(v, desc, "nested")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["script"] == "sh-wsh"
    watcher = watcher_for(run, node, desc, "nested")
    fund(watcher, node, [300_000])
    unsigned = tmp_path / "unsigned.psbt"
    sent = watcher.json(
        "send", "--to", outside_address(), "--amount", "100000sat", "--fee-rate", "2", "--out", unsigned
    )
    inp = PSBT.parse(unsigned.read_bytes()).inputs[0]
    assert inp.redeem_script is not None and inp.witness_script is not None
    assert watcher("inspect", unsigned).returncode == 0
    sign(vaults[0], unsigned, tmp_path / "one.psbt")
    two, _ = sign(vaults[1], tmp_path / "one.psbt", tmp_path / "two.psbt")
    assert two["complete"] is True
    final = watcher.json("finalize", tmp_path / "two.psbt", "--out", tmp_path / "final.psbt")
    tx = Transaction.parse(bytes.fromhex(final["transaction"]))
    assert tx.vin[0].script_sig.data == bytes([len(inp.redeem_script.data)]) + inp.redeem_script.data
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    # The scriptSig is part of the txid: the sent transaction's id is the finalized one's, not the unsigned one's.
    assert final["txid"] != sent["txid"]
    assert watcher("broadcast", tmp_path / "two.psbt").stdout.decode().strip() == final["txid"]
