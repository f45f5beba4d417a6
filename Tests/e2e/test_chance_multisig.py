"""The Chance wallet's `multisig:` text protocol (docs/architecture.md section 3) across two Airlock vaults.

An independent script (embit) builds the texts: the 2-of-3 `sh(sortedmulti)` redeem script and address, the unsigned
legacy transaction, and the third cosigner's signature. The vaults register the wallet, sign the text in either order
(file, stdin and QR PNG inputs), and the final transaction goes to the regtest node, whose libbitcoinkernel judges it.
A signature under the wrong key position or for another transaction is refused (exit 2); controls pass.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
import segno
from embit import bip32, script
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.psbt import PSBT
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput
from signer_psbt import Vault, branch

NET = NETWORKS["regtest"]
STRANGER = script.p2wpkh(bip32.HDKey.from_seed(b"\x43" * 32).key.get_public_key()).address(NET)
COSIGNER_PATH = "m/48h/1h/0h/2h"


@dataclass
class Wallet:
    """Two Airlock vaults and one embit cosigner sharing `sh(sortedmulti(2, A, B, C))`."""

    a: Vault
    b: Vault
    c_root: bip32.HDKey
    desc: str


@pytest.fixture
def wallet(bin_dir, home, request) -> Wallet:
    """The wallet; `sortedmulti` unless the test asks for `multi` (indirect parameter)."""
    function = getattr(request, "param", "sortedmulti")
    a = Vault(bin_dir, home.env, home.root, "alice")
    b = Vault(bin_dir, home.env, home.root, "bob")
    c_root = bip32.HDKey.from_seed(os.urandom(32), version=NET["xprv"])
    c_xpub = c_root.derive(COSIGNER_PATH).to_public().to_base58(version=NET["xpub"])
    keys = [a.export("wsh-multi"), b.export("wsh-multi"), f"[{c_root.my_fingerprint.hex()}/48h/1h/0h/2h]{c_xpub}"]
    desc = f"sh({function}(2," + ",".join(k + "/<0;1>/*" for k in keys) + "))"
    for vault in (a, b):
        vault.run("multisig", "register", "-", "--name", "chance", "--yes", input=desc.encode(), check=True)
    return Wallet(a, b, c_root, desc)


@dataclass
class Spend:
    """An unsigned spend of one coin of the wallet, as embit builds it, and the coin's funding transaction."""

    tx: Transaction
    redeem: bytes
    prev_hex: str

    def text(self, signatures: dict[int, list[str]] | None = None) -> str:
        body = {"rawTx": self.tx.serialize().hex(), "redeemScriptHex": self.redeem.hex(), "keySignatures": {}}
        for position, sigs in (signatures or {}).items():
            body["keySignatures"][str(position)] = sigs
        return "multisig:" + json.dumps(body)


def fund(node, wallet: Wallet, index: int, value: int = 100_000, send: int = 60_000, fee: int = 1_000) -> Spend:
    derived = Descriptor.from_string(branch(wallet.desc, 0)).derive(index)
    txid = node.send_to(derived.address(NET), value)
    prev_hex = node.cli("getrawtransaction", txid)
    prev = Transaction.parse(bytes.fromhex(prev_hex))
    vout = next(i for i, out in enumerate(prev.vout) if out.script_pubkey == derived.script_pubkey())
    change = Descriptor.from_string(branch(wallet.desc, 1)).derive(index).script_pubkey()
    tx = Transaction(
        version=2,
        vin=[TransactionInput(bytes.fromhex(txid), vout, sequence=0xFFFFFFFD)],
        vout=[
            TransactionOutput(send, script.address_to_scriptpubkey(STRANGER)),
            TransactionOutput(value - send - fee, change),
        ],
    )
    return Spend(tx=tx, redeem=derived.redeem_script().data, prev_hex=prev_hex)


def offline_spend(desc: str, index: int = 0) -> Spend:
    """A spend of receive `index` of the `sh(…multi(…))` wallet `desc` with a made-up funding transaction (no node):
    60,000 sat away, 39,000 to change `index`, fee 1,000."""
    derived = Descriptor.from_string(branch(desc, 0)).derive(index)
    prev = Transaction(
        version=2,
        vin=[TransactionInput(b"\x01" * 32, 0)],
        vout=[TransactionOutput(100_000, derived.script_pubkey())],
    )
    change = Descriptor.from_string(branch(desc, 1)).derive(index).script_pubkey()
    tx = Transaction(
        version=2,
        vin=[TransactionInput(prev.txid(), 0, sequence=0xFFFFFFFD)],
        vout=[TransactionOutput(60_000, script.address_to_scriptpubkey(STRANGER)), TransactionOutput(39_000, change)],
    )
    return Spend(tx=tx, redeem=derived.redeem_script().data, prev_hex=prev.serialize().hex())


def embit_signature(wallet: Wallet, spend: Spend, index: int, tx: Transaction | None = None) -> tuple[int, str]:
    """The embit cosigner's key position in the redeem script and its SIGHASH_ALL signature of input 0."""
    key = wallet.c_root.derive(f"{COSIGNER_PATH}/0/{index}").key
    keys = [op for op in _pushes(spend.redeem)[1:-1]]
    position = keys.index(key.get_public_key().sec())
    digest = (tx or spend.tx).sighash_legacy(0, script.Script(spend.redeem), SIGHASH.ALL)
    return position, (key.sign(digest).serialize() + bytes([SIGHASH.ALL])).hex()


def _pushes(raw: bytes) -> list:
    """The redeem script's elements: OP_m, the pushed keys, OP_n (OP_CHECKMULTISIG dropped)."""
    out, i = [], 0
    while i < len(raw) - 1:
        op = raw[i]
        if 1 <= op <= 75:
            out.append(raw[i + 1 : i + 1 + op])
            i += 1 + op
        else:
            out.append(op)
            i += 1
    return out


def sign(vault: Vault, source: str | Path, tmp_path: Path, name: str, *args: str, stdin: bytes | None = None):
    out = tmp_path / f"{name}.txt"
    proc = vault.run("sign", str(source), "--yes", "--out", str(out), *args, input=stdin)
    return proc, out


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text + "\n")
    return path


def prev_file(tmp_path: Path, spend: Spend) -> str:
    path = tmp_path / "prev.hex"
    path.write_text(spend.prev_hex + "\n")
    return str(path)


def complete_and_broadcast(node, vault: Vault, text_path: Path, tmp_path: Path, spend: Spend) -> str:
    final = tmp_path / "final.hex"
    proc, answer = sign(
        vault,
        text_path,
        tmp_path,
        "second",
        "--prev-tx",
        prev_file(tmp_path, spend),
        "--finalize",
        "--tx-out",
        str(final),
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert "complete" in proc.stderr.decode()
    body = json.loads(answer.read_text().strip()[len("multisig:") :])
    assert len(body["keySignatures"]) == 2 and body["rawTx"] == spend.tx.serialize().hex()
    raw = final.read_text().strip()
    txid = node.cli("sendrawtransaction", raw)
    assert txid == Transaction.parse(bytes.fromhex(raw)).txid().hex()
    node.mine(1)
    assert node.cli("getrawtransaction", txid, True)["confirmations"] == 1
    return txid


@pytest.mark.parametrize(
    ("order", "wallet"), [("alice-then-bob", "sortedmulti"), ("bob-then-alice", "multi")], indirect=["wallet"]
)
def test_two_vaults_in_either_order_and_the_node_accepts(regtest_node, wallet, tmp_path, order):
    first, second = (wallet.a, wallet.b) if order == "alice-then-bob" else (wallet.b, wallet.a)
    spend = fund(regtest_node, wallet, 0 if order == "alice-then-bob" else 1)
    unsigned = write(tmp_path, "unsigned.txt", spend.text())
    # The first vault reads the text from stdin, the second from a QR PNG of the first answer.
    proc, answer = sign(
        first, "-", tmp_path, "first", "--prev-tx", prev_file(tmp_path, spend), stdin=unsigned.read_bytes()
    )
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "not complete yet: 1 of the 2 signatures" in err and STRANGER in err
    assert "change" in err.lower()
    body = json.loads(answer.read_text().strip()[len("multisig:") :])
    assert list(body["keySignatures"]) != [] and len(body["keySignatures"]) == 1
    png = tmp_path / "first.png"
    segno.make(answer.read_text().strip(), error="l", micro=False).save(str(png), scale=4, border=4)
    complete_and_broadcast(regtest_node, second, png, tmp_path, spend)


def test_embit_cosigner_signature_then_a_vault_completes(regtest_node, wallet, tmp_path):
    spend = fund(regtest_node, wallet, 2)
    position, signature = embit_signature(wallet, spend, 2)
    text = write(tmp_path, "cosigned.txt", spend.text({position: [signature]}))
    complete_and_broadcast(regtest_node, wallet.a, text, tmp_path, spend)
    # The signature is in the audit journal like a PSBT's: the (unsigned) txid, destination, change and fee.
    journal = json.loads(wallet.a.run("audit", "--json", check=True).stdout)
    [entry] = [e for e in journal if e["txid"] == spend.tx.txid().hex()]
    assert entry["destinations"] == [{"address": STRANGER, "amount": 60_000}]
    assert entry["change"] == 39_000 and entry["fee"] == 1_000
    assert wallet.a.run("audit", "--verify").returncode == 0


def test_signature_under_the_wrong_position_is_refused(regtest_node, wallet, tmp_path):
    spend = fund(regtest_node, wallet, 3)
    position, signature = embit_signature(wallet, spend, 3)
    wrong = (position + 1) % 3
    text = write(tmp_path, "wrong.txt", spend.text({wrong: [signature]}))
    proc, answer = sign(wallet.a, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 2, proc.stderr.decode()
    assert f"key position {wrong} on input 0 does not verify" in proc.stderr.decode()
    assert not answer.exists()
    # Control: the same signature under its own position is accepted.
    right = write(tmp_path, "right.txt", spend.text({position: [signature]}))
    proc, answer = sign(wallet.a, right, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0, proc.stderr.decode()


def test_signature_for_another_transaction_is_refused(regtest_node, wallet, tmp_path):
    spend = fund(regtest_node, wallet, 4)
    other = Transaction.parse(spend.tx.serialize())
    other.vout[0].value -= 500  # another transaction: a different payment
    position, foreign = embit_signature(wallet, spend, 4, tx=other)
    text = write(tmp_path, "foreign.txt", spend.text({position: [foreign]}))
    proc, answer = sign(wallet.b, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 2, proc.stderr.decode()
    assert "for another transaction" in proc.stderr.decode()
    assert not answer.exists()
    # Control: the signature of this transaction passes, and the answer carries both positions.
    _, own = embit_signature(wallet, spend, 4)
    text = write(tmp_path, "own.txt", spend.text({position: [own]}))
    proc, answer = sign(wallet.b, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(json.loads(answer.read_text().strip()[len("multisig:") :])["keySignatures"]) == 2


def test_amounts_unknown_without_previous_transactions(regtest_node, wallet, tmp_path):
    spend = fund(regtest_node, wallet, 5)
    text = write(tmp_path, "unsigned.txt", spend.text())
    proc, answer = sign(wallet.a, text, tmp_path, "answer")
    assert proc.returncode == 4, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "are UNKNOWN without their previous transactions" in err and "--prev-tx FILE" in err
    assert not answer.exists()
    # A previous transaction of another coin is refused as invalid input (its txid is no input's).
    stray = fund(regtest_node, wallet, 6)
    proc, _ = sign(wallet.a, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, stray))
    assert proc.returncode == 2 and "spent by no input" in proc.stderr.decode()
    # Control: with the right one it signs.
    proc, answer = sign(wallet.a, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0, proc.stderr.decode()


def test_unregistered_redeem_script_is_refused(bin_dir, home, regtest_node, wallet, tmp_path):
    spend = fund(regtest_node, wallet, 7)
    text = write(tmp_path, "unsigned.txt", spend.text())
    stranger = Vault(bin_dir, home.env, home.root, "carol")
    proc, answer = sign(stranger, text, tmp_path, "answer", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 4, proc.stderr.decode()
    assert "belongs to no registered sh(multi)/sh(sortedmulti) wallet" in proc.stderr.decode()
    assert not answer.exists()


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda b: {**b, "extra": 1}, "unknown field 'extra'"),
        (lambda b: {**b, "rawTx": b["rawTx"] + "zz"}, "rawTx is not hex"),
        (lambda b: {**b, "keySignatures": {"3": ["00"]}}, "key position '3' is not one of"),
        (lambda b: {k: v for k, v in b.items() if k != "redeemScriptHex"}, "'redeemScriptHex' is missing"),
    ],
)
def test_malformed_texts_exit_2(wallet, tmp_path, mutate, fragment):
    prev = Transaction(
        version=2, vin=[TransactionInput(b"\x11" * 32, 0)], vout=[TransactionOutput(1000, script.Script(b"\x51"))]
    )
    derived = Descriptor.from_string(branch(wallet.desc, 0)).derive(0)
    tx = Transaction(
        version=2, vin=[TransactionInput(prev.txid(), 0)], vout=[TransactionOutput(900, script.Script(b"\x51"))]
    )
    body = {"rawTx": tx.serialize().hex(), "redeemScriptHex": derived.redeem_script().data.hex(), "keySignatures": {}}
    text = write(tmp_path, "bad.txt", "multisig:" + json.dumps(mutate(body)))
    proc, answer = sign(wallet.a, text, tmp_path, "answer")
    assert proc.returncode == 2, proc.stderr.decode()
    assert fragment in proc.stderr.decode()
    assert not answer.exists()


def watcher(run, *args: str, input: bytes | None = None, check: bool = True):
    return run("airlock-watcher", *args, input=input, check=check)


def test_watcher_imports_combines_and_broadcasts(run, regtest_node, wallet, tmp_path):
    imported = json.loads(
        watcher(
            run, "import", "-", "--name", "chance", "--network", "regtest", "--json", input=wallet.desc.encode()
        ).stdout
    )
    receive0 = Descriptor.from_string(branch(wallet.desc, 0)).derive(0).address(NET)
    assert imported["first_address"] == receive0
    spend = fund(regtest_node, wallet, 8)
    watcher(run, "node", "set", f"electrum://127.0.0.1:{regtest_node.electrum_port}")
    watcher(run, "sync")
    balance = json.loads(watcher(run, "balance", "--json").stdout)
    assert balance["unconfirmed"] + balance["confirmed"] == 100_000
    # Each vault signs the unsigned text on its own; the watcher combines the answers.
    unsigned = write(tmp_path, "unsigned.txt", spend.text())
    proc, answer_a = sign(wallet.a, unsigned, tmp_path, "answer-a", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0, proc.stderr.decode()
    # convert: the text as a PSBT with what the wallet holds (previous transaction, every key's derivation), signed
    # by the vault as a PSBT, and back to a text: the same answer as the vault's own for the text.
    as_psbt = tmp_path / "unsigned.psbt"
    watcher(
        run, "convert", str(unsigned), "--kind", "psbt", "--wallet", "chance", "--to", "binary", "--out", str(as_psbt)
    )
    psbt = PSBT.parse(as_psbt.read_bytes())
    assert psbt.inputs[0].non_witness_utxo.serialize().hex() == spend.prev_hex
    assert psbt.inputs[0].redeem_script.data == spend.redeem and len(psbt.inputs[0].bip32_derivations) == 3
    signed_psbt = tmp_path / "signed-a.psbt"
    proc = wallet.a.run("sign", str(as_psbt), "--yes", "--full", "--out", str(signed_psbt))
    assert proc.returncode == 0, proc.stderr.decode()
    back = watcher(run, "convert", str(signed_psbt), "--kind", "multisig", "--to", "binary")
    assert back.stdout.decode().strip() == answer_a.read_text().strip()
    # Control of the conversion's input check: a descriptor is neither a text nor a PSBT (exit 2).
    wrong = watcher(run, "convert", "-", "--kind", "psbt", check=False, input=wallet.desc.encode())
    assert wrong.returncode == 2 and "--kind psbt takes a PSBT or a multisig: text" in wrong.stderr.decode()
    # The second vault gets the text as its argument and answers with a QR PNG (its own --qr), which combine reads.
    answer_b = tmp_path / "answer-b.png"
    proc = wallet.b.run("sign", spend.text(), "--yes", "--qr", str(answer_b), "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0 and answer_b.exists(), proc.stderr.decode()
    answers = [answer_a, answer_b]
    # Attack: one answer alone is incomplete; broadcast refuses it (exit 2) and sends nothing.
    alone = watcher(run, "broadcast", str(answers[0]), check=False)
    assert alone.returncode == 2 and "1 of the 2 signatures" in alone.stderr.decode()
    # Attack: a text of another transaction cannot be combined with these.
    other = fund(regtest_node, wallet, 9)
    stray = write(tmp_path, "other.txt", other.text())
    mixed = watcher(run, "combine", str(answers[0]), str(stray), check=False)
    assert mixed.returncode == 2 and "different transactions" in mixed.stderr.decode()
    combined_path = tmp_path / "combined.txt"
    combined = json.loads(watcher(run, "combine", *map(str, answers), "--out", str(combined_path), "--json").stdout)
    assert combined["complete"] is True and combined["signatures"] == [2]
    assert combined_path.read_text().strip() == combined["multisig_text"]
    sent = watcher(run, "broadcast", str(combined_path))
    txid = sent.stdout.decode().strip()
    # The fee comes from the previous transaction the watcher's store holds (legacy inputs carry no amounts).
    assert "fee: 0.00001000 BTC" in sent.stderr.decode() and "(back to this wallet)" in sent.stderr.decode()
    regtest_node.mine(1)
    assert regtest_node.cli("getrawtransaction", txid, True)["confirmations"] == 1


def test_two_inputs_with_previous_transactions_in_one_file(regtest_node, wallet, tmp_path):
    """Two coins of one address (one redeem script, as the protocol has it), both funding transactions in one
    --prev-tx file; each vault signs both inputs and the node accepts the transaction."""
    derived = Descriptor.from_string(branch(wallet.desc, 0)).derive(10)
    outpoints, prevs = [], []
    for value in (70_000, 50_000):
        txid = regtest_node.send_to(derived.address(NET), value)
        prev = Transaction.parse(bytes.fromhex(regtest_node.cli("getrawtransaction", txid)))
        vout = next(i for i, out in enumerate(prev.vout) if out.script_pubkey == derived.script_pubkey())
        outpoints.append((txid, vout))
        prevs.append(prev.serialize().hex())
    tx = Transaction(
        version=2,
        vin=[TransactionInput(bytes.fromhex(t), v, sequence=0xFFFFFFFD) for t, v in outpoints],
        vout=[TransactionOutput(118_500, script.address_to_scriptpubkey(STRANGER))],
    )
    spend = Spend(tx=tx, redeem=derived.redeem_script().data, prev_hex="\n".join(prevs))
    text = write(tmp_path, "two.txt", spend.text())
    proc, answer = sign(wallet.b, text, tmp_path, "first", "--prev-tx", prev_file(tmp_path, spend))
    assert proc.returncode == 0, proc.stderr.decode()
    body = json.loads(answer.read_text().strip()[len("multisig:") :])
    assert [len(sigs) for sigs in body["keySignatures"].values()] == [2]
    assert "FEE: 0.00001500 BTC" in proc.stderr.decode()
    complete_and_broadcast(regtest_node, wallet.a, answer, tmp_path, spend)
