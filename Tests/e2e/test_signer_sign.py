"""`airlock-signer sign` round trips with peers (docs/architecture.md sections 2 and 5), on real coins of the regtest node.

For each script type (wpkh, sh-wpkh, pkh, tr, and a 2-of-3 wsh sortedmulti across three vaults) and each PSBT builder
(BDK's TxBuilder on a watch-only wallet synced from the node's Electrum port; embit from the funding transactions
fetched over RPC):

1. the faucet pays the vault's exported descriptor, the node mines it;
2. the unsigned PSBT goes to `airlock-signer sign` twice: as a file (the default trimmed output, signatures only) and as
   QR PNG frames (`--full`). The frames are `ur:crypto-psbt` parts made by a small encoder in signer_psbt.py (written
   from BCR-2020-005/012, not Airlock's) and drawn by segno, shuffled;
3. embit and BDK each combine the trimmed output with their unsigned copy and finalize, and each finalize the full
   output; Bitcoin Core's consensus code (the node's kernel) accepts all four transactions (testmempoolaccept), one is
   broadcast and mined, and the test checks it is in a block.
"""

from __future__ import annotations

import base64
import json

import bdkpython as bdk
import pytest
from embit.finalizer import finalize_psbt
from embit.psbt import PSBT
from embit.transaction import Transaction
from signer_psbt import (
    Coin,
    Vault,
    address,
    bdk_finalize,
    branch,
    embit_combine,
    embit_finalize,
    embit_psbt,
    multisig_descriptor,
    read_qr_pngs,
    ur_decode,
    ur_frames,
    write_qr_pngs,
)

from regtest.testing import FAUCET_ADDRESS

SINGLE = ["wpkh", "sh-wpkh", "pkh", "tr"]
AMOUNTS = [400_000, 250_000]  # two coins per wallet, so every PSBT has two inputs
SEND = 300_000


def fund(node, desc: str) -> list[Coin]:
    """The faucet pays receive addresses 0 and 1 of `desc`; mined. Returns the coins with their transactions."""
    coins = []
    for index, amount in enumerate(AMOUNTS):
        addr = address(desc, index)
        txid = node.send_to(addr, amount)
        tx = Transaction.parse(bytes.fromhex(node.cli("getrawtransaction", txid)))
        vout = next(i for i, o in enumerate(tx.vout) if o.value == amount)
        coins.append(Coin(tx, vout, index))
    node.mine(1)
    return coins


def bdk_psbt(node, desc: str) -> bytes:
    """BDK builds the spend: a watch-only wallet of the exported descriptor (both branches), full scan over the
    node's Electrum port, TxBuilder paying the faucet from both coins, with BDK's change output."""
    wallet = bdk.Wallet(
        bdk.Descriptor(branch(desc, 0), bdk.NetworkKind.TEST),
        bdk.Descriptor(branch(desc, 1), bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )
    client = bdk.ElectrumClient(node.electrum_url)
    wallet.apply_update(client.full_scan(wallet.start_full_scan().build(), 20, 10, True))
    assert wallet.balance().confirmed.to_sat() == sum(AMOUNTS)
    recipient = bdk.Address(FAUCET_ADDRESS, bdk.Network.REGTEST)
    # Both coins, so every PSBT has two inputs (BDK's own selection would often need only one).
    coins = [u.outpoint for u in wallet.list_unspent()]
    psbt = (
        bdk.TxBuilder()
        .add_recipient(recipient.script_pubkey(), bdk.Amount.from_sat(SEND))
        .add_utxos(coins)
        .fee_rate(bdk.FeeRate.from_sat_per_vb(3))
        .finish(wallet)
    )
    return base64.b64decode(psbt.serialize())


def embit_built_psbt(desc: str, coins: list[Coin]) -> bytes:
    total = sum(c.value for c in coins)
    fee = 2_000
    psbt = embit_psbt(desc, coins, [(FAUCET_ADDRESS, SEND)], change=(0, total - SEND - fee))
    return psbt.serialize()


def build(node, desc: str, builder: str) -> bytes:
    coins = fund(node, desc)
    return bdk_psbt(node, desc) if builder == "bdk" else embit_built_psbt(desc, coins)


def sign_both_ways(vault: Vault, unsigned: bytes, work, tag: str) -> tuple[bytes, bytes, dict]:
    """Signs `unsigned` as a file (trimmed output) and as shuffled QR PNG frames (--full). Returns both outputs and
    the JSON verdict of the first."""
    src = work / f"{tag}-unsigned.psbt"
    src.write_bytes(unsigned)
    trimmed_path, full_path = work / f"{tag}-trimmed.psbt", work / f"{tag}-full.psbt"
    verdict = json.loads(vault.sign(src, args=("--out", str(trimmed_path), "--json")).stdout)
    frames = ur_frames(unsigned)
    assert len(frames) > 1, "the QR input should be a multi-part UR"
    frame_dir = work / f"{tag}-frames"
    write_qr_pngs(frames, frame_dir)
    vault.sign(frame_dir, args=("--full", "--out", str(full_path)))
    return trimmed_path.read_bytes(), full_path.read_bytes(), verdict


def accept_and_mine(node, txs: list[bytes]) -> str:
    """All finalizations are accepted by the kernel; the first is broadcast, mined, and found in a block."""
    txids = {Transaction.parse(t).txid().hex() for t in txs}
    assert len(txids) == 1, "the finalizations disagree on the transaction"
    for raw in txs:
        result = node.cli("testmempoolaccept", [raw.hex()])[0]
        assert result["allowed"], result
    txid = node.cli("sendrawtransaction", txs[0].hex())
    assert txid == txids.pop()
    block = node.mine(1)[0]
    info = node.cli("getrawtransaction", txid, 1)
    assert info["confirmations"] == 1 and info["blockhash"] == block
    assert txid in node.cli("getblock", block, 1)["tx"]
    return txid


@pytest.mark.parametrize("builder", ["bdk", "embit"])
@pytest.mark.parametrize("kind", SINGLE)
def test_single_sig_round_trip(regtest_node, bin_dir, home, tmp_path, kind, builder):
    node = regtest_node
    vault = Vault(bin_dir, home.env, home.root, "solo")
    desc = vault.export(kind)
    unsigned = build(node, desc, builder)
    trimmed, full, verdict = sign_both_ways(vault, unsigned, tmp_path, kind)

    # The review saw one external payment to the faucet and verified the change.
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == [0, 1]
    external = [o for o in verdict["outputs"] if o["external"]]
    assert [(o["address"], o["amount"]) for o in external] == [(FAUCET_ADDRESS, SEND)]
    assert [o["change"] for o in verdict["outputs"] if not o["external"]] == [True]
    assert verdict["fee"] == sum(AMOUNTS) - SEND - sum(o["amount"] for o in verdict["outputs"] if o["change"])
    # The trimmed output is smaller than the full one and carries no UTXOs.
    assert len(trimmed) < len(full)
    t = PSBT.parse(trimmed)
    assert all(i.non_witness_utxo is None and i.witness_utxo is None for i in t.inputs)
    sig_field = (lambda i: bool(i.unknown.get(b"\x13"))) if kind == "tr" else (lambda i: len(i.partial_sigs) == 1)
    assert all(sig_field(i) for i in t.inputs)

    txs = [
        embit_finalize(embit_combine(unsigned, trimmed)),
        bdk_finalize(unsigned, trimmed),
        embit_finalize(embit_combine(full)),
        bdk_finalize(None, full),
    ]
    accept_and_mine(node, txs)


@pytest.mark.parametrize("builder", ["bdk", "embit"])
def test_multisig_2_of_3_round_trip(regtest_node, bin_dir, home, tmp_path, builder):
    node = regtest_node
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in ("alice", "bob", "carol")]
    keys = [v.export("wsh-multi") for v in vaults]
    for v, key in zip(vaults, keys):
        assert key.startswith(f"[{v.fingerprint.hex()}/48h/1h/0h/2h]tpub")
    desc = multisig_descriptor(keys)
    for v in vaults:
        reg = json.loads(
            v.run(
                "multisig",
                "register",
                "-",
                "--name",
                "team",
                "--json",
                "--yes",
                check=True,
                input=(desc + "\n").encode(),
            ).stdout
        )
        assert reg["threshold"] == 2
    unsigned = build(node, desc, builder)

    # Alice signs the file (trimmed), Bob the QR frames (--full); Carol is not needed.
    a_trimmed, a_full, verdict = sign_both_ways(vaults[0], unsigned, tmp_path, "alice")
    assert verdict["signed_inputs"] == [0, 1]
    assert [o["change"] for o in verdict["outputs"] if not o["external"]] == [True], "multisig change not verified"
    b_trimmed, b_full, _ = sign_both_ways(vaults[1], unsigned, tmp_path, "bob")

    # One signature is not enough for either finalizer.
    assert finalize_psbt(embit_combine(unsigned, a_trimmed)) is None
    txs = [
        embit_finalize(embit_combine(unsigned, a_trimmed, b_trimmed)),
        bdk_finalize(unsigned, a_trimmed, b_trimmed),
        embit_finalize(embit_combine(b_full, a_trimmed)),
        bdk_finalize(a_full, b_full),
    ]
    accept_and_mine(node, txs)


def test_signed_qr_output_reads_back_with_zbar(regtest_node, bin_dir, home, tmp_path):
    """The signed PSBT written as QR PNGs (--qr) is read by zbarimg and decoded by the Python UR decoder; it is the
    same PSBT the signer writes to a file, and it finalizes to a transaction the node accepts."""
    node = regtest_node
    vault = Vault(bin_dir, home.env, home.root, "qr")
    desc = vault.export("wpkh")
    unsigned = build(node, desc, "embit")
    src = tmp_path / "unsigned.psbt"
    src.write_bytes(unsigned)
    vault.sign(src, args=("--full", "--qr", str(tmp_path / "signed.png")))
    pngs = sorted(tmp_path.glob("signed*.png"))
    assert len(pngs) >= 1
    signed = ur_decode(read_qr_pngs(pngs))
    vault.sign(src, args=("--full", "--out", str(tmp_path / "signed.psbt")))
    assert signed == (tmp_path / "signed.psbt").read_bytes()  # ECDSA signatures are deterministic (RFC6979)
    accept_and_mine(node, [embit_finalize(embit_combine(signed)), bdk_finalize(None, signed)])
