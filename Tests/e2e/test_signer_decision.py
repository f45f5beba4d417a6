"""The signing decision under attack (issue 13): a hostile coordinator's PSBTs, made with embit, against a vault
restored from a known mnemonic (BIP39's "abandon … about" vector). Each attack is refused (exit 4), or shown and
counted as an external payment in `sign --json`; each sits beside a control case proving that real change is still
change and that honest PSBTs still sign, so no check passes by simply saying no.
"""

from __future__ import annotations

import json
import os

import pytest
from embit import bip32, bip39, script
from embit.descriptor import Descriptor
from embit.networks import NETWORKS
from embit.psbt import PSBT, DerivationPath, InputScope, OutputScope
from embit.script import Witness
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput
from signer_psbt import Vault, _fill_scope, embit_psbt, strip_checksum
from test_signer_attacks import STRANGER, coin_for

NET = NETWORKS["regtest"]
KNOWN = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
ROOT = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(KNOWN), version=NET["xprv"])


@pytest.fixture
def known(bin_dir, home):
    vault = Vault(bin_dir, home.env, home.root, "known", mnemonic=KNOWN)
    vault.desc = vault.export("wpkh")
    return vault


def sign(vault, psbt: PSBT, tmp_path, *args: str, name: str = "tx.psbt"):
    path = tmp_path / name
    path.write_bytes(psbt.serialize())
    return vault.run("sign", str(path), "--yes", "--json", *args)


def verdict(proc) -> dict:
    assert proc.returncode in (0, 4), proc.stderr.decode()
    return json.loads(proc.stdout)


def signed(proc) -> dict:
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["verdict"] == "signed"
    return out


def refused(proc, fragment: str) -> dict:
    err = proc.stderr.decode()
    assert proc.returncode == 4, f"exit {proc.returncode}\n{err}"
    assert fragment in err, err
    out = json.loads(proc.stdout)
    assert out["verdict"] == "refused" and out["signed_inputs"] == []
    return out


def spend_with_output(vault, out_desc: str, branch: int, index: int, coin_index: int = 0) -> PSBT:
    """One coin of the vault's wpkh account (receive `coin_index`): 60,000 sat to a stranger, 39,000 sat to
    `out_desc` at `branch`/`index` with its derivation, as a coordinator presents change."""
    psbt = embit_psbt(vault.desc, [coin_for(vault.desc, coin_index, 100_000)], [(STRANGER, 60_000)])
    derived = Descriptor.from_string(strip_checksum(out_desc)).derive(index, branch_index=branch)
    psbt.outputs.append(OutputScope(vout=TransactionOutput(39_000, derived.script_pubkey())))
    _fill_scope(psbt.outputs[-1], derived)
    return psbt


def assert_change(out: dict, wallet_fragment: str = "wpkh account 0"):
    assert [o["change"] for o in out["outputs"]] == [False, True], out["outputs"]
    assert out["change"] == 39_000 and out["sent"] == 60_000
    assert wallet_fragment in out["outputs"][1]["wallet"]


def assert_external(out: dict, warning: str):
    assert [o["external"] for o in out["outputs"]] == [True, True], out["outputs"]
    assert out["change"] == 0 and out["sent"] == 99_000
    assert any(warning in w for w in out["warnings"]), out["warnings"]


# --- change must re-derive to the wallet being spent ------------------------------------------------------------


def test_control_real_change_is_change(known, tmp_path):
    out = signed(sign(known, spend_with_output(known, known.desc, 1, 5), tmp_path))
    assert_change(out)
    assert out["outputs"][1]["branch"] == 1 and out["outputs"][1]["derivation_index"] == 5
    # A receive-branch output of the same account is ours too (a payment to oneself), not change.
    out = signed(sign(known, spend_with_output(known, known.desc, 0, 7), tmp_path))
    assert out["outputs"][1]["external"] is False and out["sent"] == 60_000


@pytest.mark.parametrize("account", [1, 7])
def test_change_to_another_account_of_the_seed_is_external(known, tmp_path, account):
    other = known.run("export", "--script", "wpkh", "--account", str(account), check=True).stdout.decode().strip()
    psbt = spend_with_output(known, other, 1, 999_999 if account == 7 else 0)
    proc = sign(known, psbt, tmp_path)
    assert_external(signed(proc), "GOES TO A KEY OF THIS VAULT OUTSIDE THE WALLET BEING SPENT")
    review = proc.stderr.decode()
    assert "CHANGE / OWN ADDRESSES" not in review and f"/84h/1h/{account}h/1/" in review


@pytest.mark.parametrize("script_type", ["pkh", "sh-wpkh", "tr"])
def test_change_to_another_script_type_is_external(known, tmp_path, script_type):
    other = known.export(script_type)
    proc = sign(known, spend_with_output(known, other, 1, 0), tmp_path)
    assert_external(signed(proc), "OUTSIDE THE WALLET BEING SPENT")


def test_change_past_the_gap_is_external(known, tmp_path):
    # The inputs use receive index 3: change up to 3 + 10,000 is change, one more is not; 2^31-1 never.
    out = signed(sign(known, spend_with_output(known, known.desc, 1, 10_003, coin_index=3), tmp_path))
    assert_change(out)
    out = signed(sign(known, spend_with_output(known, known.desc, 1, 10_004, coin_index=3), tmp_path))
    assert_external(out, "IS AT INDEX 10004, PAST THE GAP LIMIT (at most 10003")
    out = signed(sign(known, spend_with_output(known, known.desc, 0, 2_147_483_647), tmp_path))
    assert_external(out, "IS AT INDEX 2147483647, PAST THE GAP LIMIT")


def cosigner_keys(vault: Vault, account: int) -> list[str]:
    keys = [vault.run("export", "--script", "wsh-multi", "--account", str(account), check=True).stdout.decode().strip()]
    for seed in (b"\x11", b"\x22"):
        r = bip32.HDKey.from_seed(seed * 32 + bytes([account]), version=NET["xprv"])
        xpub = r.derive("m/48h/1h/0h/2h").to_public().to_base58(version=NET["xpub"])
        keys.append(f"[{r.my_fingerprint.hex()}/48h/1h/0h/2h]{xpub}")
    return keys


def ms_desc(keys: list[str], threshold: int = 2) -> str:
    return f"wsh(sortedmulti({threshold}," + ",".join(k + "/<0;1>/*" for k in keys) + "))"


def test_change_to_another_registered_wallet_is_external(known, tmp_path):
    team, other = ms_desc(cosigner_keys(known, 0)), ms_desc(cosigner_keys(known, 1))
    for name, desc in (("team", team), ("other", other)):
        known.run("multisig", "register", "-", "--name", name, "--yes", check=True, input=(desc + "\n").encode())
    psbt = embit_psbt(team, [coin_for(team, 2, 100_000)], [(STRANGER, 60_000)], change=(4, 39_000))
    out = signed(sign(known, psbt, tmp_path))
    assert_change(out, "multisig 'team' 2 of 3 wsh")
    # The same spend, its "change" on the other registered wallet of this vault.
    psbt = embit_psbt(team, [coin_for(team, 2, 100_000)], [(STRANGER, 60_000)])
    derived = Descriptor.from_string(other).derive(4, branch_index=1)
    psbt.outputs.append(OutputScope(vout=TransactionOutput(39_000, derived.script_pubkey())))
    _fill_scope(psbt.outputs[-1], derived)
    out = signed(sign(known, psbt, tmp_path))
    assert_external(out, "OUTSIDE THE WALLET BEING SPENT")
    assert out["outputs"][1]["wallet"].startswith("multisig 'other'")


# --- the signer signs exactly the inputs the review approved ----------------------------------------------------


def test_input_whose_script_does_not_match_its_derivation_is_refused(known, tmp_path):
    honest = spend_with_output(known, known.desc, 1, 0)
    assert signed(sign(known, honest, tmp_path))["signed_inputs"] == [0]
    # The coin pays receive index 0, but the derivation names the key of index 1 (whose private key the vault has).
    psbt = spend_with_output(known, known.desc, 1, 0)
    psbt.inputs[0].bip32_derivations = {
        ROOT.derive("m/84h/1h/0h/0/1").key.get_public_key(): DerivationPath(
            ROOT.my_fingerprint, bip32.parse_path("m/84h/1h/0h/0/1")
        )
    }
    refused(sign(known, psbt, tmp_path), "input 0 claims a key of this vault, but its script is not the one")
    # The vault's key m/44h/1h/0h/0/0 (a pkh path) in a P2WPKH coin: another script type than the derivation's.
    key = ROOT.derive("m/44h/1h/0h/0/0").key.get_public_key()
    tx = Transaction(
        version=2, vin=[TransactionInput(os.urandom(32), 0)], vout=[TransactionOutput(100_000, script.p2wpkh(key))]
    )
    psbt = PSBT(
        Transaction(
            version=2,
            vin=[TransactionInput(tx.txid(), 0)],
            vout=[TransactionOutput(99_000, script.address_to_scriptpubkey(STRANGER))],
        )
    )
    psbt.inputs[0].non_witness_utxo = tx
    psbt.inputs[0].witness_utxo = tx.vout[0]
    psbt.inputs[0].bip32_derivations = {key: DerivationPath(ROOT.my_fingerprint, bip32.parse_path("m/44h/1h/0h/0/0"))}
    refused(sign(known, psbt, tmp_path), "input 0 claims a key of this vault, but its script is not the one")


def test_one_mismatched_input_refuses_the_whole_transaction(known, tmp_path):
    coins = [coin_for(known.desc, 0, 50_000), coin_for(known.desc, 1, 50_000)]
    psbt = embit_psbt(known.desc, coins, [(STRANGER, 60_000)], change=(0, 39_000))
    assert signed(sign(known, psbt, tmp_path))["signed_inputs"] == [0, 1]
    psbt.inputs[1].bip32_derivations = {
        ROOT.derive("m/84h/1h/0h/0/9").key.get_public_key(): DerivationPath(
            ROOT.my_fingerprint, bip32.parse_path("m/84h/1h/0h/0/9")
        )
    }
    out = refused(sign(known, psbt, tmp_path), "input 1 claims a key of this vault")
    assert out["approved_inputs"] == [0]


def foreign_script_psbt(known) -> PSBT:
    """A P2WSH coin of `<vault key m/84h/1h/0h/0/0> OP_CHECKSIG`: the vault's key in a script no wallet describes."""
    key = ROOT.derive("m/84h/1h/0h/0/0").key.get_public_key()
    witness_script = script.Script(bytes([33]) + key.sec() + b"\xac")
    tx = Transaction(
        version=2,
        vin=[TransactionInput(os.urandom(32), 0)],
        vout=[TransactionOutput(100_000, script.p2wsh(witness_script))],
    )
    psbt = PSBT(
        Transaction(
            version=2,
            vin=[TransactionInput(tx.txid(), 0)],
            vout=[TransactionOutput(99_000, script.address_to_scriptpubkey(STRANGER))],
        )
    )
    psbt.inputs[0].non_witness_utxo = tx
    psbt.inputs[0].witness_utxo = tx.vout[0]
    psbt.inputs[0].witness_script = witness_script
    psbt.inputs[0].bip32_derivations = {key: DerivationPath(ROOT.my_fingerprint, bip32.parse_path("m/84h/1h/0h/0/0"))}
    return psbt


def test_foreign_script_input_needs_allow_unregistered(known, tmp_path):
    psbt = foreign_script_psbt(known)
    refused(sign(known, psbt, tmp_path), "input 0 spends a script of no registered wallet")
    out = signed(sign(known, psbt, tmp_path, "--allow-unregistered", "--full"))
    assert out["signed_inputs"] == [0]
    assert len(PSBT.from_base64(out["psbt"]).inputs[0].partial_sigs) == 1


def legacy_psbt(known, inputs: int, outputs: int, sighash: int) -> PSBT:
    desc = known.export("pkh")
    coins = [coin_for(desc, i, 50_000) for i in range(inputs)]
    psbt = embit_psbt(desc, coins, [(STRANGER, 40_000 * inputs // outputs)] * outputs)
    for inp in psbt.inputs:
        inp.sighash_type = sighash
    return psbt


def test_legacy_sighash_single_without_matching_output_is_never_signed(known, tmp_path):
    # Control: SIGHASH_SINGLE on input 0 with output 0 is signed when explicitly allowed.
    control = legacy_psbt(known, 1, 1, SIGHASH.SINGLE)
    assert signed(sign(known, control, tmp_path, "--allow-non-default-sighash"))["signed_inputs"] == [0]
    # Input 1 has no output 1: its legacy digest is the constant 1, a signature for any spend of that coin.
    attack = legacy_psbt(known, 2, 1, SIGHASH.SINGLE)
    refused(
        sign(known, attack, tmp_path, "--allow-non-default-sighash"),
        "input 1 asks for SIGHASH_SINGLE but there is no output 1: never signed",
    )
    attack = legacy_psbt(known, 2, 1, SIGHASH.SINGLE | SIGHASH.ANYONECANPAY)
    refused(sign(known, attack, tmp_path, "--allow-non-default-sighash"), "there is no output 1: never signed")


# --- malformed transactions are invalid input (exit 2) ----------------------------------------------------------


def invalid(proc, fragment: str):
    err = proc.stderr.decode() + proc.stdout.decode()
    assert proc.returncode == 2, f"exit {proc.returncode}\n{err}"
    assert fragment in err, err


def test_duplicate_inputs_are_invalid(known, tmp_path):
    coin = coin_for(known.desc, 0, 100_000)
    control = embit_psbt(known.desc, [coin], [(STRANGER, 60_000)], change=(0, 39_000))
    signed(sign(known, control, tmp_path))
    psbt = embit_psbt(known.desc, [coin, coin], [(STRANGER, 160_000)], change=(0, 39_000))
    invalid(sign(known, psbt, tmp_path), "a second time (duplicate input)")


def test_amounts_past_21_million_btc_are_invalid(known, tmp_path):
    max_money = 21_000_000 * 100_000_000
    psbt = spend_with_output(known, known.desc, 1, 0)
    psbt.outputs[0].value = max_money + 1
    invalid(sign(known, psbt, tmp_path), "invalid PSBT")
    psbt = spend_with_output(known, known.desc, 1, 0)
    psbt.outputs[0].value = max_money  # each output at most 21M, their sum past it
    psbt.outputs[1].value = max_money
    invalid(sign(known, psbt, tmp_path), "the outputs sum to more than 21,000,000 BTC")
    # Two inputs of 20,000,000 BTC each: their sum overflows 21M.
    coins = [coin_for(known.desc, 0, 20_000_000 * 100_000_000), coin_for(known.desc, 1, 20_000_000 * 100_000_000)]
    psbt = embit_psbt(known.desc, coins, [(STRANGER, 60_000)], change=(0, 39_000))
    invalid(sign(known, psbt, tmp_path), "the inputs sum to more than 21,000,000 BTC")


def test_output_to_an_unknown_witness_version_is_warned(known, tmp_path):
    control = signed(sign(known, spend_with_output(known, known.desc, 1, 0), tmp_path))
    assert not any("witness version" in w for w in control["warnings"])
    psbt = spend_with_output(known, known.desc, 1, 0)
    psbt.outputs[0].script_pubkey = script.Script(b"\x52\x20" + b"\x07" * 32)  # OP_2 <32 bytes>
    out = signed(sign(known, psbt, tmp_path))
    assert any("output 0 pays to witness version 2" in w for w in out["warnings"]), out["warnings"]


# --- fee caps ------------------------------------------------------------------------------------------------------


def with_padded_foreign_input(known, fee: int) -> PSBT:
    """Our coin plus a stranger's finalized coin whose witness claims 40 kB: the estimated size is large, so the rate
    looks low; the stranger can replace that witness with a small one after we sign."""
    psbt = embit_psbt(
        known.desc, [coin_for(known.desc, 0, 100_000)], [(STRANGER, 200_000 - 39_000 - fee)], change=(0, 39_000)
    )
    stranger_tx = Transaction(
        version=2,
        vin=[TransactionInput(os.urandom(32), 0)],
        vout=[TransactionOutput(100_000, script.address_to_scriptpubkey(STRANGER))],
    )
    scope = InputScope(vin=TransactionInput(stranger_tx.txid(), 0))
    scope.witness_utxo = stranger_tx.vout[0]
    scope.non_witness_utxo = stranger_tx
    scope.final_scriptwitness = Witness([b"\x00" * 40_000])
    psbt.inputs.append(scope)
    return psbt


def test_fee_rate_cap_ignores_foreign_size_claims(known, tmp_path):
    psbt = with_padded_foreign_input(known, fee=60_000)
    # Over the claimed size (~10,000 vB) the rate is ~6 sat/vB; over the smallest possible size it is ~300.
    refused(sign(known, psbt, tmp_path, "--max-fee-rate", "100"), "sat/vB is above the maximum of 100 sat/vB")
    out = signed(sign(known, psbt, tmp_path, "--max-fee-rate", "1000"))
    assert out["signed_inputs"] == [0] and out["fee"] == 60_000


def test_absolute_fee_cap(known, tmp_path):
    psbt = embit_psbt(
        known.desc, [coin_for(known.desc, 0, 20_000_000)], [(STRANGER, 10_000_000)], change=(0, 3_000_000)
    )  # fee 0.07 BTC
    refused(
        sign(known, psbt, tmp_path, "--max-fee-rate", "100000"),
        "the fee (0.07000000 BTC) is above the maximum of 0.05000000 BTC (--max-fee)",
    )
    out = signed(sign(known, psbt, tmp_path, "--max-fee-rate", "100000", "--max-fee", "0.1btc"))
    assert out["fee"] == 7_000_000


# --- what is shown --------------------------------------------------------------------------------------------------


def test_review_is_shown_before_the_question_also_under_json(known, tmp_path):
    path = tmp_path / "tx.psbt"
    path.write_bytes(spend_with_output(known, known.desc, 1, 0).serialize())
    no = known.run("sign", str(path), "--json", input=b"n\n")
    assert no.returncode == 4
    err = no.stderr.decode()
    assert err.index("SENDING (1 destination)") < err.index("Sign this transaction?")
    yes = known.run("sign", str(path), "--json", input=b"y\n")
    assert yes.returncode == 0 and json.loads(yes.stdout)["verdict"] == "signed"
    assert "CHANGE / OWN ADDRESSES" in yes.stderr.decode()


def test_terminal_controls_are_stripped(known, tmp_path):
    team = ms_desc(cosigner_keys(known, 0))
    name = "te\x1b[2Jam\u202e"
    known.run("multisig", "register", "-", "--name", name, "--yes", check=True, input=(team + "\n").encode())
    listed = known.run("multisig", "list", check=True).stdout.decode()
    assert "\x1b" not in listed and "\u202e" not in listed and "te\\u001b[2Jam\\u202e" in listed
    psbt = embit_psbt(team, [coin_for(team, 2, 100_000)], [(STRANGER, 60_000)], change=(4, 39_000))
    proc = sign(known, psbt, tmp_path)
    assert "\x1b" not in proc.stderr.decode() and "multisig 'te\\u001b[2Jam\\u202e'" in proc.stderr.decode()


# --- multisig registration ------------------------------------------------------------------------------------------


def test_registration_shows_the_policy_and_stores_nothing_unconfirmed(known, tmp_path):
    keys = cosigner_keys(known, 0)
    team = ms_desc(keys)
    proc = known.run("multisig", "register", "-", "--name", "team", input=(team + "\n").encode())
    err = proc.stderr.decode()
    assert proc.returncode == 4 and "nothing stored" in err
    assert "policy: 2 of 3, script wsh" in err
    fp = known.fingerprint.hex()
    assert f"[{fp}] m/48h/1h/0h/2h   <-- THIS VAULT" in err
    for key in keys[1:]:
        assert f"[{key[1:9]}] m/48h/1h/0h/2h\n" in err and key.split("]")[1] in err
    assert json.loads(known.run("multisig", "list", "--json", check=True).stdout) == []
    # Control: --yes answers, and the wallet is stored.
    known.run("multisig", "register", "-", "--name", "team", "--yes", check=True, input=(team + "\n").encode())
    assert [w["name"] for w in json.loads(known.run("multisig", "list", "--json", check=True).stdout)] == ["team"]


def test_registration_refuses_duplicate_keys_and_bad_checksums_and_warns_1_of_n(known, tmp_path):
    keys = cosigner_keys(known, 0)
    dup = ms_desc([keys[0], keys[1], keys[1]])
    proc = known.run("multisig", "register", "-", "--yes", input=(dup + "\n").encode())
    assert proc.returncode == 4 and "appears more than once" in proc.stderr.decode()
    desc = known.run("multisig", "register", "-", "--yes", "--json", check=True, input=(ms_desc(keys) + "\n").encode())
    checksummed = json.loads(desc.stdout)["descriptor"]
    body, checksum = checksummed.split("#")
    wrong = body + "#" + ("q" if checksum[0] != "q" else "p") + checksum[1:]
    proc = known.run("multisig", "register", "-", "--name", "x", "--yes", input=(wrong + "\n").encode())
    assert proc.returncode == 2 and "checksum" in proc.stderr.decode().lower()
    one = known.run("multisig", "register", "-", "--name", "one", "--yes", input=(ms_desc(keys[:2], 1) + "\n").encode())
    assert one.returncode == 0 and "1 of 2: ANY ONE cosigner can spend alone" in one.stderr.decode()
    assert [w["name"] for w in json.loads(known.run("multisig", "list", "--json", check=True).stdout)] == [
        "multisig",
        "one",
    ]


def test_list_and_info_show_only_what_the_vault_authenticates(known, tmp_path):
    team = ms_desc(cosigner_keys(known, 0))
    known.run("multisig", "register", "-", "--name", "team", "--yes", check=True, input=(team + "\n").encode())
    doc = json.loads(known.path.read_text())
    text = json.dumps(doc)
    assert "team" in text
    # A wallet slipped into the clear header beside the sealed payload.
    known.path.write_text(text.replace('"team"', '"evil"'))
    for args in (("multisig", "list", "--json"), ("info", "--json")):
        proc = known.run(*args)
        assert proc.returncode == 3, proc.stderr.decode()
        assert b"evil" not in proc.stdout


# --- what sign writes (docs/architecture.md section 3) ---------------------------------------------------------------------------


def test_whole_psbt_until_complete_then_trimmed(known, tmp_path):
    team = ms_desc(cosigner_keys(known, 0))
    known.run("multisig", "register", "-", "--name", "team", "--yes", check=True, input=(team + "\n").encode())
    psbt = embit_psbt(team, [coin_for(team, 2, 100_000)], [(STRANGER, 60_000)], change=(4, 39_000))
    out = signed(sign(known, psbt, tmp_path))
    assert out["complete"] is False
    written = PSBT.from_base64(out["psbt"])
    assert written.inputs[0].witness_script is not None and written.inputs[0].bip32_derivations
    assert written.outputs[1].bip32_derivations  # the next cosigner can verify the change
    trimmed = PSBT.from_base64(signed(sign(known, psbt, tmp_path, "--trim"))["psbt"])
    assert trimmed.inputs[0].witness_script is None and len(trimmed.inputs[0].partial_sigs) == 1
    # Single-sig: this signature completes it, so the answer is trimmed unless --full.
    single = spend_with_output(known, known.desc, 1, 0)
    out = signed(sign(known, single, tmp_path))
    assert out["complete"] is True and not PSBT.from_base64(out["psbt"]).inputs[0].bip32_derivations
    full = signed(sign(known, single, tmp_path, "--full"))
    assert PSBT.from_base64(full["psbt"]).inputs[0].bip32_derivations
