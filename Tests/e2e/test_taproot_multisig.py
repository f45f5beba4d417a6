"""Taproot multisig (issue 17 item 3) and the per-input multisig signature state (item 6), with the real executables.

A 2-of-3 `tr(H,multi_a(2,…))` wallet (H: BIP341's unspendable internal key, as Sparrow and BDK use) of three vaults:
registered on each signer, imported by the watcher, addresses checked against embit and BDK (receive and change, ten
indexes each), funded on the regtest node, spent with a watcher-built PSBT (BIP371 leaf fields) that two vaults sign
on the script path, finalized by the watcher and accepted by the node (libbitcoinkernel). The watcher's `inspect` and
the second signer's review show who has signed. BDK also signs the same PSBT for one cosigner and the watcher
finalizes it. Attacks: a change output to another taproot multisig of the same cosigners is an external payment; an
internal key that is neither H nor a cosigner is refused at registration. The wsh sortedmulti signature state is
checked with a PSBT embit builds.
"""

from __future__ import annotations

import base64
import json
import os

import bdkpython as bdk
from descriptor_interop import bdk_cosign, bdk_wallet
from embit import bip39
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.psbt import PSBT
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Coin, Vault, embit_psbt, multisig_descriptor

NET = NETWORKS["regtest"]
H = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"  # BIP341's NUMS point
AMOUNTS = [200_000, 150_000]
SEND = 250_000


def tr_multisig(keys: list[str], threshold: int = 2, internal: str = H, sorted_: bool = False) -> str:
    leaf = "sortedmulti_a" if sorted_ else "multi_a"
    return f"tr({internal},{leaf}({threshold}," + ",".join(k + "/<0;1>/*" for k in keys) + "))"


def embit_addresses(desc: str, count: int) -> list[tuple[str, str]]:
    d = Descriptor.from_string(desc)
    return [(d.derive(i, branch_index=0).address(NET), d.derive(i, branch_index=1).address(NET)) for i in range(count)]


def bdk_addresses(desc: str, count: int) -> list[tuple[str, str]]:
    wallet = bdk_wallet(desc)
    return [
        (
            str(wallet.peek_address(bdk.KeychainKind.EXTERNAL, i).address),
            str(wallet.peek_address(bdk.KeychainKind.INTERNAL, i).address),
        )
        for i in range(count)
    ]


def register(vault: Vault, desc: str, name: str) -> dict:
    return json.loads(
        vault.run(
            "multisig", "register", "-", "--name", name, "--yes", "--json", input=desc.encode(), check=True
        ).stdout
    )


def cosigners(bin_dir, home, names=("alice", "bob", "carol")) -> tuple[list[Vault], list[str]]:
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in names]
    return vaults, [v.export("wsh-multi") for v in vaults]


def tap_fields(raw: bytes) -> list[dict]:
    """The BIP371 input fields of a PSBT, as embit parses them."""
    out = []
    for inp in PSBT.parse(raw).inputs:
        out.append(
            {
                "internal_key": inp.taproot_internal_key.xonly() if inp.taproot_internal_key else None,
                "merkle_root": inp.taproot_merkle_root,
                "leaf_scripts": list(inp.taproot_scripts.items()),  # control block -> script ‖ leaf version
                "derivations": {pub.xonly(): leaves for pub, (leaves, _) in inp.taproot_bip32_derivations.items()},
                "script_sigs": dict(inp.taproot_sigs),  # (key, leaf hash) -> signature
            }
        )
    return out


def test_taproot_multisig_2_of_3_on_regtest(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    vaults, keys = cosigners(bin_dir, home)
    desc = tr_multisig(keys)
    for v in vaults:
        reg = register(v, desc, "tapteam")
        assert (reg["threshold"], reg["keys"], reg["script"]) == (2, 3, "tr")
    shown = vaults[0].run("multisig", "register", "-", "--name", "again", "--yes", input=desc.encode())
    review = shown.stderr.decode()
    assert "2 of 3, script taproot script path (multi_a)" in review, review
    assert "key path: none (unspendable internal key, BIP341's H)" in review
    assert f"[{vaults[0].fingerprint.hex()}] m/48h/1h/0h/2h   <-- THIS VAULT" in review, review

    # Every address agrees with embit and BDK, receive and change.
    ours = embit_addresses(desc, 10)
    assert ours == bdk_addresses(desc, 10)
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "tapteam", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    received = [watcher.json("receive", "--new")["address"] for _ in AMOUNTS]
    assert received == [ours[0][0], ours[1][0]]
    for address, amount in zip(received, AMOUNTS):
        node.send_to(address, amount)
    node.mine(1)
    watcher("sync")
    assert watcher.balance()["confirmed"] == sum(AMOUNTS)

    outside = outside_address()
    unsigned_file = tmp_path / "unsigned.psbt"
    sent = watcher.json("send", "--to", outside, "--amount", f"{SEND}sat", "--fee-rate", "2", "--out", unsigned_file)
    raw = unsigned_file.read_bytes()
    fields = tap_fields(raw)
    assert len(fields) == 2
    for f in fields:
        assert f["internal_key"] == bytes.fromhex(H)
        assert len(f["leaf_scripts"]) == 1 and len(f["leaf_scripts"][0][0]) == 33  # one leaf, depth 0
        assert len(f["derivations"]) == 3 and all(len(leaves) == 1 for leaves in f["derivations"].values())
    # The change output carries PSBT_OUT_TAP_INTERNAL_KEY, PSBT_OUT_TAP_TREE and the leaf keys' derivations.
    tapped = [o for o in PSBT.parse(raw).outputs if o.taproot_internal_key is not None]
    assert len(tapped) == 1 and tapped[0].taproot_internal_key.xonly() == bytes.fromhex(H)
    assert len(tapped[0].taproot_bip32_derivations) == 3 and b"\x06" in tapped[0].unknown  # 0x06: PSBT_OUT_TAP_TREE
    assert tapped[0].unknown[b"\x06"][:2] == b"\x00\xc0"  # depth 0, tapscript leaf version

    # Alice signs (whole PSBT passed on); the watcher's inspect then shows her signature and one missing.
    alice_file = tmp_path / "alice.psbt"
    alice = json.loads(vaults[0].sign(unsigned_file, args=("--full", "--out", str(alice_file), "--json")).stdout)
    assert alice["verdict"] == "signed" and alice["signed_inputs"] == [0, 1]
    assert [o["change"] for o in alice["outputs"] if not o["external"]] == [True], "taproot multisig change not seen"
    assert [o["wallet"] for o in alice["outputs"] if o["change"]] == ["multisig 'tapteam' 2 of 3 tr"]
    for state in alice["multisig"]:
        s = state["signatures"]
        assert (s["kind"], s["wallet"], s["threshold"], s["signatures"], s["missing"]) == (
            "multi_a",
            "tapteam",
            2,
            1,
            1,
        )
        signed = {c["fingerprint"] for c in s["cosigners"] if c["signed"]}
        assert signed == {vaults[0].fingerprint.hex()}
    assert all(len(f["script_sigs"]) == 1 for f in tap_fields(alice_file.read_bytes()))
    inspected = watcher.json("inspect", alice_file)
    for entry in inspected["inputs"]:
        m = entry["multisig"]
        assert (m["wallet"], m["signatures"], m["missing"]) == ("tapteam", 1, 1)
        assert [c["valid"] for c in m["cosigners"] if c["signed"]] == [True]  # verified against the BIP342 sighash
        assert {c["fingerprint"] for c in m["cosigners"] if not c["signed"]} == {
            vaults[1].fingerprint.hex(),
            vaults[2].fingerprint.hex(),
        }
    text = watcher("inspect", alice_file).stdout.decode()
    assert f"multisig 'tapteam' 2 of 3 (multi_a): signed by {vaults[0].fingerprint.hex()}; not yet: " in text, text
    assert "1 more signature needed" in text

    # Bob's review shows Alice's signature and his own key as not yet signed; his answer completes it.
    bob_file = tmp_path / "bob.psbt"
    bob_run = vaults[1].sign(alice_file, args=("--out", str(bob_file), "--json"))
    bob = json.loads(bob_run.stdout)
    review = bob_run.stderr.decode()
    assert "MULTISIG SIGNATURES (before this vault signs):" in review
    assert (
        f"input 0 ('tapteam'): 2 of 3 (multi_a): signed by {vaults[0].fingerprint.hex()}; not yet: "
        f"{vaults[1].fingerprint.hex()} (this vault), {vaults[2].fingerprint.hex()}; 1 more signature needed"
    ) in review, review
    assert bob["verdict"] == "signed" and bob["complete"] is True
    assert all(s["signatures"]["missing"] == 0 for s in bob["multisig"])

    final = watcher.json("finalize", bob_file, "--out", tmp_path / "final.psbt")
    tx = Transaction.parse(bytes.fromhex(final["transaction"]))
    for vin in tx.vin:
        items = vin.witness.items
        # multi_a satisfaction: one item per key in reverse script order (empty for Carol), script, control block.
        assert len(items) == 5 and items[-1][0] & 0xFE == 0xC0 and len(items[-1]) == 33
        assert sorted(len(i) for i in items[:3]) == [0, 64, 64]
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    txid = watcher("broadcast", bob_file).stdout.decode().strip()
    assert txid == sent["txid"]
    node.mine(1)
    assert outside_holds(node, outside) == [(txid, SEND)]
    watcher("sync")
    assert watcher.balance()["confirmed"] == sum(AMOUNTS) - SEND - sent["fee"]


def test_bdk_signs_the_taproot_multisig_psbt(run, home, bin_dir, regtest_node, tmp_path):
    """BDK (rust-miniscript) signs the watcher's PSBT for Carol's key on the script path, Airlock for Alice's; the
    watcher finalizes and the node accepts; BDK finalizes the same PSBT to the same transaction."""
    node = regtest_node
    mnemonics = [bip39.mnemonic_from_bytes(os.urandom(16)) for _ in range(3)]
    vaults = [Vault(bin_dir, home.env, home.root, f"b{i}", mnemonic=m) for i, m in enumerate(mnemonics)]
    keys = [v.export("wsh-multi") for v in vaults]
    desc = tr_multisig(keys)  # bdkpython 3.1.1's rust-miniscript does not parse sortedmulti_a
    register(vaults[0], desc, "bdkteam")
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "bdkteam", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    address = watcher.json("receive", "--new")["address"]
    node.send_to(address, 300_000)
    node.mine(1)
    watcher("sync")
    unsigned_file = tmp_path / "unsigned.psbt"
    sent = watcher.json(
        "send", "--to", outside_address(), "--amount", "100000sat", "--fee-rate", "2", "--out", unsigned_file
    )

    # Carol's private descriptor for BDK: her xprv at the same origin.
    carol_file = tmp_path / "carol.psbt"
    bdk_cosign(desc, keys[2], mnemonics[2], unsigned_file, carol_file)
    assert all(len(f["script_sigs"]) == 1 for f in tap_fields(carol_file.read_bytes())), "BDK signed nothing"

    alice_file = tmp_path / "alice.psbt"
    alice = json.loads(vaults[0].sign(carol_file, args=("--full", "--out", str(alice_file), "--json")).stdout)
    assert alice["verdict"] == "signed" and alice["complete"] is True
    final = watcher.json("finalize", alice_file, "--out", tmp_path / "final.psbt")
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    assert final["txid"] == sent["txid"]
    # BDK finalizes the same PSBT (Airlock's and BDK's script-path signatures) to the same transaction.
    finalized = bdk.Psbt(base64.b64encode(alice_file.read_bytes()).decode()).finalize()
    assert finalized.could_finalize, finalized.errors
    bdk_tx = bytes(finalized.psbt.extract_tx().serialize()).hex()
    assert bdk_tx == final["transaction"]


def test_change_to_another_taproot_multisig_is_external(run, home, bin_dir, regtest_node, tmp_path):
    """Attack: the 'change' goes to a 1-of-3 taproot multisig of the same cosigners (any one of them could take it);
    control: the wallet's own change output is change. The wallet is sortedmulti_a (addresses checked with embit;
    BDK 3.1.1 does not parse it), and the spend completes on the node."""
    node = regtest_node
    vaults, keys = cosigners(bin_dir, home, ("dave", "erin", "frank"))
    desc = tr_multisig(keys, sorted_=True)
    for v in vaults[:2]:
        register(v, desc, "mine")
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "mine", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    ours = embit_addresses(desc, 5)
    assert [watcher.json("receive", "--new")["address"] for _ in range(5)] == [a for a, _ in ours]
    node.send_to(ours[0][0], 300_000)
    node.mine(1)
    watcher("sync")
    other = Descriptor.from_string(tr_multisig(keys, threshold=1)).derive(0, branch_index=1).address(NET)
    unsigned_file = tmp_path / "unsigned.psbt"
    watcher.json("send", "--to", other, "--amount", "100000sat", "--fee-rate", "2", "--out", unsigned_file)
    first = tmp_path / "first.psbt"
    verdict = json.loads(vaults[0].sign(unsigned_file, args=("--json", "--full", "--out", str(first))).stdout)
    by_address = {o["address"]: o for o in verdict["outputs"]}
    assert by_address[other]["external"] is True and by_address[other]["change"] is False
    own = [o for o in verdict["outputs"] if o["address"] != other]
    assert len(own) == 1 and own[0]["change"] is True and own[0]["external"] is False
    assert verdict["sent"] == 100_000
    assert own[0]["address"] in [c for _, c in ours]
    second = json.loads(vaults[1].sign(first, args=("--json", "--out", str(tmp_path / "second.psbt"))).stdout)
    assert second["complete"] is True
    final = watcher.json("finalize", tmp_path / "second.psbt", "--out", tmp_path / "final.psbt")
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]


def test_taproot_internal_key_must_be_unspendable_or_a_cosigner(bin_dir, home):
    vaults, keys = cosigners(bin_dir, home, ("gina", "hank", "ivan"))
    stranger = Vault(bin_dir, home.env, home.root, "stranger").export("wsh-multi")
    # Attack: the internal key is someone else's: they could spend alone on the key path.
    bad = vaults[0].run(
        "multisig",
        "register",
        "-",
        "--name",
        "x",
        "--yes",
        input=tr_multisig(keys, internal=stranger + "/<0;1>/*").encode(),
    )
    assert bad.returncode == 4, bad.stderr
    assert b"neither BIP341's unspendable H point nor one of the cosigners" in bad.stderr
    assert json.loads(vaults[0].run("multisig", "list", "--json", check=True).stdout) == []
    # Controls: H, and a cosigner's key (shown: that cosigner can spend alone).
    assert register(vaults[0], tr_multisig(keys), "nums")["script"] == "tr"
    cosigner_internal = vaults[1].run(
        "multisig",
        "register",
        "-",
        "--name",
        "primary",
        "--yes",
        input=tr_multisig(keys, internal=keys[1] + "/<0;1>/*").encode(),
        check=True,
    )
    assert b"key path: cosigner 2 (THIS VAULT) ALONE can spend without the others" in cosigner_internal.stderr
    # A descriptor whose leaf is not multi_a is not a multisig wallet.
    pk_leaf = f"tr({H},pk({keys[0]}/<0;1>/*))"
    assert vaults[0].run("multisig", "register", "-", "--yes", input=pk_leaf.encode()).returncode == 2


def test_wsh_sortedmulti_signature_state(run, home, bin_dir, tmp_path):
    """Item 6 for wsh sortedmulti: after one cosigner signs an embit-built PSBT, both inspects and the next signer's
    review name who signed and that one signature is missing."""
    vaults, keys = cosigners(bin_dir, home, ("kim", "lee", "max"))
    desc = multisig_descriptor(keys)
    for v in vaults[:2]:
        register(v, desc, "vault-team")
    d = Descriptor.from_string(desc)
    funding = Transaction(
        version=2,
        vin=[TransactionInput(os.urandom(32), 0)],
        vout=[TransactionOutput(500_000, d.derive(0, branch_index=0).script_pubkey())],
    )
    psbt = embit_psbt(desc, [Coin(funding, 0, 0)], [(outside_address(), 200_000)], change=(1, 299_000))
    unsigned = tmp_path / "wsh.psbt"
    unsigned.write_bytes(psbt.serialize())
    first = tmp_path / "first.psbt"
    vaults[0].sign(unsigned, args=("--full", "--out", str(first)))
    kim, lee, max_ = (v.fingerprint.hex() for v in vaults)

    inspected = json.loads(run("airlock-signer", "inspect", str(first), "--json", check=True).stdout)
    [state] = [i["multisig"] for i in inspected["inputs"]]
    assert (state["kind"], state["threshold"], state["signatures"], state["missing"]) == ("multisig", 2, 1, 1)
    assert {c["fingerprint"]: c["signed"] for c in state["cosigners"]} == {kim: True, lee: False, max_: False}
    text = run("airlock-signer", "inspect", str(first), check=True).stdout.decode()
    assert f"multisig 2 of 3 (multisig): signed by {kim}; not yet: " in text and "1 more signature needed" in text

    watcher = Watcher(run, None)
    watcher("import", "-", "--name", "vault-team", "--network", "regtest", input=desc)
    assert watcher.json("receive", "--new")["address"] == d.derive(0, branch_index=0).address(NET)
    entry = watcher.json("inspect", first)["inputs"][0]
    assert (entry["own"], entry["multisig"]["wallet"], entry["multisig"]["missing"]) == (True, "vault-team", 1)

    second = vaults[1].sign(first, args=("--json", "--out", str(tmp_path / "second.psbt")))
    assert f"input 0 ('vault-team'): 2 of 3 (multisig): signed by {kim}; not yet: " in second.stderr.decode()
    assert f"{lee} (this vault)" in second.stderr.decode()
    [after] = json.loads(second.stdout)["multisig"]
    assert (after["signatures"]["signatures"], after["signatures"]["missing"]) == (2, 0)
    # Attack: Kim's signature altered in the PSBT (still well-formed DER) is reported bad and not counted.
    forged = PSBT.parse(first.read_bytes())
    [(pub, sig)] = list(forged.inputs[0].partial_sigs.items())
    forged.inputs[0].partial_sigs[pub] = sig[:-2] + bytes([sig[-2] ^ 1]) + sig[-1:]
    forged_file = tmp_path / "forged.psbt"
    forged_file.write_bytes(forged.serialize())
    bad = json.loads(run("airlock-signer", "inspect", str(forged_file), "--json", check=True).stdout)["inputs"][0]
    assert (bad["multisig"]["signatures"], bad["multisig"]["missing"]) == (0, 2)
    assert [c["valid"] for c in bad["multisig"]["cosigners"] if c["fingerprint"] == kim] == [False]
    assert (
        "BAD SIGNATURE (does not verify, not counted): " + kim
        in run("airlock-signer", "inspect", str(forged_file), check=True).stdout.decode()
    )
    # Control: the unsigned PSBT shows nobody.
    unsigned_state = json.loads(run("airlock-signer", "inspect", str(unsigned), "--json", check=True).stdout)["inputs"][
        0
    ]
    assert unsigned_state["multisig"]["signatures"] == 0 and unsigned_state["multisig"]["missing"] == 2
