"""The attack corpus of docs/architecture.md section 5: PSBTs built with embit that a careful signer must refuse (exit 4) or show
loudly. Each test asserts the exact message fragment, and where a flag allows the case, that the flag does sign.

The coins are outputs of funding transactions made here (they need not be on a chain: the signer checks the PSBT,
not the network), each paying one of the vault's own addresses.
"""

from __future__ import annotations

import json
import os

import pytest
from embit import bip32, script
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.psbt import PSBT
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput
from signer_psbt import Coin, Vault, embit_psbt, embit_root, multisig_descriptor, strip_checksum

NET = NETWORKS["regtest"]
STRANGER = script.p2wpkh(bip32.HDKey.from_seed(b"\x42" * 32).key.get_public_key()).address(NET)


def coin_for(desc: str, index: int, value: int, change: bool = False) -> Coin:
    """A coin of `value` sats on `desc`'s address `index`, in a funding transaction of its own."""
    spk = Descriptor.from_string(strip_checksum(desc)).derive(index, branch_index=1 if change else 0).script_pubkey()
    tx = Transaction(
        version=2,
        vin=[TransactionInput(os.urandom(32), 0)],
        vout=[
            TransactionOutput(1_000, script.p2wpkh(bip32.HDKey.from_seed(os.urandom(32)).key.get_public_key())),
            TransactionOutput(value, spk),
        ],
    )
    return Coin(tx, 1, index, change)


def sign(vault: Vault, psbt: PSBT, tmp_path, *args: str, name: str = "attack.psbt"):
    path = tmp_path / name
    path.write_bytes(psbt.serialize())
    return vault.run("sign", str(path), "--yes", *args)


def refused(proc, fragment: str) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == 4, f"exit {proc.returncode}\n{err}"
    assert fragment in err, err
    return err


def signed(proc) -> dict:
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


@pytest.fixture
def solo(bin_dir, home):
    vault = Vault(bin_dir, home.env, home.root, "solo")
    vault.desc = vault.export("wpkh")
    return vault


def simple(vault, value=100_000, send=60_000, fee=1_000, **kw) -> PSBT:
    """A plain spend of one coin: `send` to a stranger, the rest minus `fee` to change index 0."""
    return embit_psbt(
        vault.desc, [coin_for(vault.desc, 0, value)], [(STRANGER, send)], change=(0, value - send - fee), **kw
    )


def test_the_honest_psbt_is_signed(solo, tmp_path):
    """The baseline every attack below departs from."""
    out = signed(sign(solo, simple(solo), tmp_path, "--json"))
    assert out["signed_inputs"] == [0] and out["fee"] == 1_000 and out["sent"] == 60_000
    assert [o["change"] for o in out["outputs"]] == [False, True]


def test_change_with_a_forged_derivation_is_shown_as_an_external_payment(solo, tmp_path):
    psbt = simple(solo)
    # The "change" pays the attacker while its derivation claims the vault's own change key m/84h/1h/0h/1/0.
    attacker = script.p2wpkh(bip32.HDKey.from_seed(b"\x66" * 32).key.get_public_key())
    psbt.outputs[1].script_pubkey = attacker
    proc = sign(solo, psbt, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    review = proc.stderr.decode()
    sending = review.split("SENDING (2 destinations):")[1].split("FEE:")[0]
    assert attacker.address(NET) in sending and "<-- CLAIMS TO BE CHANGE, IS NOT OURS" in sending
    assert "CHANGE / OWN ADDRESSES" not in review
    assert "OUTPUT 1 CLAIMS TO BE CHANGE BUT ITS SCRIPT IS NOT OURS: treated as an external payment" in review
    # The machine-readable verdict agrees: both outputs are external, there is no change.
    out = signed(sign(solo, psbt, tmp_path, "--json"))
    assert [o["external"] for o in out["outputs"]] == [True, True] and out["change"] == 0
    assert out["sent"] == 100_000 - 1_000
    # Without --yes the user is asked, and a "no" refuses.
    path = tmp_path / "attack.psbt"
    no = solo.run("sign", str(path), input=b"n\n")
    refused(no, "declined")


def test_segwit_v0_amount_lie_is_refused(solo, tmp_path):
    psbt = simple(solo)
    # The fee attack: the witness UTXO claims more than the previous transaction's output holds.
    psbt.inputs[0].witness_utxo = TransactionOutput(150_000, psbt.inputs[0].witness_utxo.script_pubkey)
    refused(sign(solo, psbt, tmp_path), "input 0: the witness UTXO contradicts the previous transaction")


def test_missing_previous_transaction(solo, tmp_path):
    psbt = simple(solo, non_witness_utxo=False)
    refused(
        sign(solo, psbt, tmp_path),
        "input 0 has no previous transaction (non_witness_utxo); its amount cannot be verified",
    )
    out = signed(sign(solo, psbt, tmp_path, "--allow-missing-prev-tx", "--json"))
    assert out["signed_inputs"] == [0]
    assert any("has no previous transaction" in w for w in out["warnings"])


@pytest.mark.parametrize(
    "sighash", [SIGHASH.NONE, SIGHASH.SINGLE, SIGHASH.ALL | SIGHASH.ANYONECANPAY, SIGHASH.NONE | SIGHASH.ANYONECANPAY]
)
def test_non_default_sighash_is_refused(solo, tmp_path, sighash):
    psbt = simple(solo)
    psbt.inputs[0].sighash_type = sighash
    refused(sign(solo, psbt, tmp_path), f"input 0 asks for sighash type {hex(sighash)}; only ALL/DEFAULT are signed")
    out = signed(sign(solo, psbt, tmp_path, "--allow-non-default-sighash", "--full", "--json"))
    sigs = list(PSBT.from_base64(out["psbt"]).inputs[0].partial_sigs.values())
    assert len(sigs) == 1 and sigs[0][-1] == sighash


def test_testnet_psbt_on_a_mainnet_vault(bin_dir, home, tmp_path):
    vault = Vault(bin_dir, home.env, home.root, "main", network="main")
    # The vault's own seed, but the testnet account m/84h/1h/0h and a testnet destination.
    root = embit_root(vault.mnemonic)
    account = root.derive("m/84h/1h/0h").to_public().to_base58(version=NET["xpub"])
    vault.desc = f"wpkh([{root.my_fingerprint.hex()}/84h/1h/0h]{account}/<0;1>/*)"
    refused(sign(vault, simple(vault), tmp_path), "the PSBT is for test but this vault is on main")


def test_fee_rate_above_the_maximum(solo, tmp_path):
    psbt = simple(solo, fee=20_000)  # about 141 vB: ~142 sat/vB
    err = refused(sign(solo, psbt, tmp_path, "--max-fee-rate", "100"), "sat/vB is above the maximum of 100 sat/vB")
    assert "fee rate 14" in err
    # The default maximum (1,000 sat/vB) signs it, with the fee shown.
    assert signed(sign(solo, psbt, tmp_path, "--json"))["fee"] == 20_000


def test_fee_above_the_amount_sent(solo, tmp_path):
    psbt = simple(solo, send=10_000, fee=12_000)
    refused(sign(solo, psbt, tmp_path), "the fee (0.00012000 BTC) is more than the amount sent (0.00010000 BTC)")


def test_an_input_of_someone_else_only(solo, bin_dir, home, tmp_path):
    other = Vault(bin_dir, home.env, home.root, "other")
    other.desc = other.export("wpkh")
    psbt = simple(other)
    refused(sign(solo, psbt, tmp_path), "no input of this PSBT belongs to this vault")
    # Mixed: one input of ours, one of someone else: ours is signed, theirs is shown as not ours.
    coins = [coin_for(solo.desc, 0, 50_000), coin_for(other.desc, 0, 50_000)]
    mixed = embit_psbt(solo.desc, coins[:1], [(STRANGER, 60_000)], change=(0, 39_000))
    mixed.inputs.append(embit_psbt(other.desc, coins[1:], [(STRANGER, 1)]).inputs[0])
    out = signed(sign(solo, mixed, tmp_path, "--json"))
    assert out["signed_inputs"] == [0] and "input 1 is not ours" in out["warnings"]


def cosigners(vault: Vault) -> tuple[list[str], list[bip32.HDKey]]:
    """The vault's BIP48 key and two outside cosigners' keys (random seeds)."""
    keys = [vault.export("wsh-multi")]
    roots = []
    for _ in range(2):
        r = bip32.HDKey.from_seed(os.urandom(32), version=NET["xprv"])
        roots.append(r)
        xpub = r.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])
        keys.append(f"[{r.my_fingerprint.hex()}/48h/1h/0h/2h]{xpub}")
    return keys, roots


def multisig_psbt(desc: str) -> PSBT:
    coin = coin_for(desc, 3, 200_000)
    return embit_psbt(desc, [coin], [(STRANGER, 120_000)], change=(2, 78_000))


def test_unregistered_multisig(solo, tmp_path):
    keys, _ = cosigners(solo)
    desc = multisig_descriptor(keys)
    psbt = multisig_psbt(desc)
    err = refused(sign(solo, psbt, tmp_path), "input 0 spends a script of no registered wallet")
    assert "register the wallet (`multisig register`) or pass --allow-unregistered" in err
    proc = sign(solo, psbt, tmp_path, "--allow-unregistered", "--full")
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert (
        "note: inputs 0 spend a script of no registered wallet: signed anyway (--allow-unregistered); their "
        "change cannot be verified" in err
    )
    # The signature is there, and the unverifiable change was not shown as ours.
    ours = [k for k in PSBT.from_base64(proc.stdout.decode().strip()).inputs[0].partial_sigs]
    assert len(ours) == 1
    assert "CHANGE / OWN ADDRESSES" not in err


def test_multisig_change_not_matching_the_registered_descriptor(solo, tmp_path):
    keys, roots = cosigners(solo)
    desc = multisig_descriptor(keys)
    solo.run("multisig", "register", "-", "--name", "team", "--yes", check=True, input=(desc + "\n").encode())
    honest = multisig_psbt(desc)
    out = signed(sign(solo, honest, tmp_path, "--json"))
    assert [o["change"] for o in out["outputs"]] == [False, True]
    # The change output pays a 2-of-3 where the attacker replaced one cosigner, keeping the registered derivations.
    attacker = bip32.HDKey.from_seed(b"\x77" * 32, version=NET["xprv"])
    xpub = attacker.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])
    forged = multisig_descriptor(keys[:2] + [f"[{roots[1].my_fingerprint.hex()}/48h/1h/0h/2h]{xpub}"])
    psbt = multisig_psbt(desc)
    forged_change = Descriptor.from_string(forged).derive(2, branch_index=1)
    psbt.outputs[1].script_pubkey = forged_change.script_pubkey()
    psbt.outputs[1].witness_script = forged_change.witness_script()
    proc = sign(solo, psbt, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    review = proc.stderr.decode()
    assert forged_change.address(NET) + "  <-- CLAIMS TO BE CHANGE, IS NOT OURS" in review
    assert "OUTPUT 1 CLAIMS TO BE CHANGE BUT ITS SCRIPT IS NOT OURS: treated as an external payment" in review
    out = signed(sign(solo, psbt, tmp_path, "--json"))
    assert [o["external"] for o in out["outputs"]] == [True, True] and out["change"] == 0
