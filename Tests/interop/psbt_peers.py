#!/usr/bin/env python3
"""PSBT peers for Airlock's interop tests: embit, BDK (bdkpython) and Bitcoin Core's consensus code
(py-bitcoinkernel), driven by one JSON request on stdin, answering one JSON object on stdout.

Requests (`action` picks one):
  create            {creator: embit|bdk, kind, mnemonics}          -> {psbt}       an unsigned PSBT made by the peer
  sign              {signer: bdk|embit, kind, mnemonics, signers, psbt} -> {psbt}
  finalize          {finalizer: embit|bdk, kind, mnemonics, psbt}  -> {tx}         peer-finalized, extracted tx (hex)
  verify            {tx, psbt}                                     -> {results}    kernel script check of every input
  check_signatures  {psbt}                                         -> {ecdsa, schnorr, failures}
  accounts          {kind, mnemonics}                              -> {external, internal, ...} descriptors

`kind` is one of wpkh, sh-wpkh, pkh, tr, wsh-multi (2-of-3 sortedmulti over the three mnemonics). Keys come from the
BIP39 mnemonics through embit (BIP44/49/84/86/48 account paths on testnet/regtest), so nothing here trusts Airlock's
derivation. The funding transactions are synthetic: script verification needs only the spent outputs.
"""

import hashlib
import json
import sys

import bdkpython as bdk
import pbk
from embit import bip32, bip39, ec
from embit.descriptor import Descriptor
from embit.finalizer import finalize_psbt
from embit.networks import NETWORKS
from embit.psbt import PSBT, DerivationPath
from embit.script import Script, Witness
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

NET = NETWORKS["regtest"]

KINDS = {
    "wpkh": ("84h/1h/0h", "wpkh({})"),
    "sh-wpkh": ("49h/1h/0h", "sh(wpkh({}))"),
    "pkh": ("44h/1h/0h", "pkh({})"),
    "tr": ("86h/1h/0h", "tr({})"),
    "wsh-multi": ("48h/1h/0h/2h", "wsh(sortedmulti(2,{}))"),
}

# A payee no wallet here owns (P2WPKH of a fixed hash).
PAYEE = Script(bytes.fromhex("0014") + bytes(range(1, 21)))


def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(1)


def account_keys(kind, mnemonics, private):
    """The account keys of each mnemonic as descriptor key text, `[fp/path]xpub` (or xprv) without the branch."""
    path = KINDS[kind][0]
    keys = []
    for words in mnemonics:
        root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(words), version=NET["xprv"])
        account = root.derive("m/" + path)
        text = account.to_base58(NET["xprv"]) if private else account.to_public().to_base58(NET["xpub"])
        keys.append(f"[{root.my_fingerprint.hex()}/{path}]{text}")
    return keys


def descriptors(kind, mnemonics, private_index=None):
    """External and internal descriptor text; `private_index` names the one mnemonic whose key stays private."""
    if kind != "wsh-multi":
        mnemonics = mnemonics[:1]
    public = account_keys(kind, mnemonics, private=False)
    if private_index is not None:
        public[private_index] = account_keys(kind, [mnemonics[private_index]], private=True)[0]
    template = KINDS[kind][1]
    return tuple(template.format(",".join(k + f"/{branch}/*" for k in public)) for branch in (0, 1))


def funding_transaction(kind, scripts_and_amounts):
    """A synthetic transaction paying the given outputs, spending a made-up outpoint."""
    fake = hashlib.sha256(("airlock interop funding " + kind).encode()).digest()
    vout = [TransactionOutput(amount, script) for script, amount in scripts_and_amounts]
    return Transaction(version=2, vin=[TransactionInput(fake, 0)], vout=vout)


def fill_scope(scope, derived, taproot):
    """Adds the BIP32 (or taproot BIP32) derivations and scripts of a derived descriptor to a PSBT input/output."""
    for key in derived.keys:
        origin = DerivationPath(key.origin.fingerprint, key.origin.derivation)
        if taproot:
            scope.taproot_internal_key = key.get_public_key()
            scope.taproot_bip32_derivations[key.get_public_key()] = ([], origin)
        else:
            scope.bip32_derivations[key.get_public_key()] = origin
    if derived.witness_script() is not None:
        scope.witness_script = derived.witness_script()
    if derived.redeem_script() is not None:
        scope.redeem_script = derived.redeem_script()


def create_embit(kind, mnemonics):
    """A two-input PSBT made with embit: receive index 0 and change index 1 spent to a payee and change index 2."""
    external, internal = (Descriptor.from_string(d) for d in descriptors(kind, mnemonics))
    receive0, change1, change2 = external.derive(0), internal.derive(1), internal.derive(2)
    funding = funding_transaction(
        kind, [(receive0.script_pubkey(), 60_000), (PAYEE, 1_234), (change1.script_pubkey(), 45_000)]
    )
    txid = funding.txid()
    tx = Transaction(
        version=2,
        vin=[TransactionInput(txid, 0, sequence=0xFFFFFFFD), TransactionInput(txid, 2, sequence=0xFFFFFFFD)],
        vout=[TransactionOutput(70_000, PAYEE), TransactionOutput(33_000, change2.script_pubkey())],
    )
    psbt = PSBT(tx)
    taproot = kind == "tr"
    for inp, vout, derived in ((psbt.inputs[0], 0, receive0), (psbt.inputs[1], 2, change1)):
        if kind != "tr":
            inp.non_witness_utxo = Transaction.parse(funding.serialize())
        if kind != "pkh":
            inp.witness_utxo = funding.vout[vout]
        fill_scope(inp, derived, taproot)
    fill_scope(psbt.outputs[1], change2, taproot)
    return psbt.to_base64()


def bdk_wallet(kind, mnemonics, private_index=None):
    external, internal = descriptors(kind, mnemonics, private_index)
    return bdk.Wallet(
        bdk.Descriptor(external, bdk.NetworkKind.TEST),
        bdk.Descriptor(internal, bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )


def create_bdk(kind, mnemonics):
    """A PSBT made by BDK's TxBuilder from a watch-only wallet that holds two synthetic unconfirmed coins."""
    wallet = bdk_wallet(kind, mnemonics)
    receive = wallet.reveal_next_address(bdk.KeychainKind.EXTERNAL).address.script_pubkey()
    change = wallet.reveal_next_address(bdk.KeychainKind.INTERNAL).address.script_pubkey()
    funding = funding_transaction(
        "bdk " + kind, [(Script(receive.to_bytes()), 60_000), (PAYEE, 1_234), (Script(change.to_bytes()), 45_000)]
    )
    wallet.apply_unconfirmed_txs([bdk.UnconfirmedTx(tx=bdk.Transaction(funding.serialize()), last_seen=1)])
    psbt = (
        bdk.TxBuilder()
        .add_recipient(bdk.Script(PAYEE.data), bdk.Amount.from_sat(70_000))
        .fee_rate(bdk.FeeRate.from_sat_per_vb(2))
        .finish(wallet)
    )
    return psbt.serialize()


def sign_options():
    return bdk.SignOptions(
        trust_witness_utxo=False,
        assume_height=None,
        allow_all_sighashes=False,
        try_finalize=False,
        sign_with_tap_internal_key=True,
        allow_grinding=True,
    )


def sign(request):
    kind, mnemonics, psbt = request["kind"], request["mnemonics"], request["psbt"]
    signers = request.get("signers", [0])
    if request["signer"] == "bdk":
        parsed = bdk.Psbt(psbt)
        for index in signers:
            # BDK's sign() answers whether the PSBT is now finalized (not whether it signed); try_finalize is off.
            bdk_wallet(kind, mnemonics, private_index=index).sign(parsed, sign_options())
        return {"psbt": parsed.serialize()}
    parsed = PSBT.from_base64(psbt)
    count = 0
    for index in signers:
        root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonics[index]), version=NET["xprv"])
        count += parsed.sign_with(root)
    return {"psbt": parsed.to_base64(), "signatures": count}


def finalize(request):
    kind, psbt = request["kind"], request["psbt"]
    if request["finalizer"] == "bdk":
        parsed = bdk.Psbt(psbt)
        if not bdk_wallet(kind, request["mnemonics"]).finalize_psbt(parsed, sign_options()):
            fail("BDK could not finalize the PSBT")
        return {"tx": parsed.extract_tx().serialize().hex()}
    parsed = PSBT.from_base64(psbt)
    for inp in parsed.inputs:
        # embit keeps PSBT_IN_TAP_KEY_SIG (0x13) as an unknown record and its finalizer ignores it; a key-path
        # spend's witness is that one signature, so move it into the final witness the way BIP371 describes.
        key_sig = inp.unknown.get(b"\x13")
        if inp.is_taproot and key_sig is not None and inp.final_scriptwitness is None:
            inp.final_scriptwitness = Witness([key_sig])
    tx = finalize_psbt(parsed)
    if tx is None:
        fail("embit could not finalize the PSBT")
    return {"tx": tx.serialize().hex()}


def spent_outputs(psbt):
    """The outputs a PSBT's inputs spend, from its non-witness UTXO (checked against the outpoint) or witness UTXO."""
    parsed = PSBT.from_base64(psbt)
    outputs = []
    for index, inp in enumerate(parsed.inputs):
        if inp.non_witness_utxo is not None:
            if inp.non_witness_utxo.txid() != parsed.tx.vin[index].txid:
                fail(f"input {index}: non-witness UTXO does not match the outpoint")
            out = inp.non_witness_utxo.vout[parsed.tx.vin[index].vout]
        else:
            out = inp.witness_utxo
        outputs.append((out.script_pubkey.data, out.value))
    return outputs


def verify(request):
    """Bitcoin Core's script verification (all flags, taproot included) of every input of the final transaction."""
    raw = bytes.fromhex(request["tx"])
    spent = spent_outputs(request["psbt"])
    tx = pbk.Transaction(raw)
    kernel_outputs = [pbk.TransactionOutput(pbk.ScriptPubkey(script), amount) for script, amount in spent]
    precomputed = pbk.script.PrecomputedTransactionData(tx, kernel_outputs)
    parsed = Transaction.parse(raw)
    if len(parsed.vin) != len(spent):
        fail(f"the transaction has {len(parsed.vin)} inputs, the PSBT {len(spent)}")
    results = []
    for index, (script, amount) in enumerate(spent):
        try:
            ok = pbk.ScriptPubkey(script).verify(amount, tx, precomputed, index, pbk.ScriptVerificationFlags.ALL)
            results.append({"input": index, "valid": bool(ok)})
        except pbk.ScriptVerifyException as error:
            results.append({"input": index, "valid": False, "error": str(error)})
    return {"results": results, "txid": parsed.txid().hex()}


def check_signatures(request):
    """Checks with embit every ECDSA partial signature (valid, low-R, low-S) and every taproot signature."""
    parsed = PSBT.from_base64(request["psbt"])
    order = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    ecdsa = schnorr = 0
    failures = []
    for index, inp in enumerate(parsed.inputs):
        for pub, sig in inp.partial_sigs.items():
            ecdsa += 1
            der, sighash = sig[:-1], sig[-1]
            digest = parsed.sighash(index, sighash=sighash)
            if not pub.verify(ec.Signature.parse(der), digest):
                failures.append(f"input {index}: ECDSA signature of {pub.sec().hex()} does not verify")
            r_length = der[3]
            s_length = der[5 + r_length]
            s = int.from_bytes(der[6 + r_length : 6 + r_length + s_length], "big")
            if r_length > 32 or der[4] >= 0x80:
                failures.append(f"input {index}: high R ({r_length} bytes)")
            if s > order // 2:
                failures.append(f"input {index}: high S")
        key_sig = inp.unknown.get(b"\x13")
        if key_sig is not None:
            schnorr += 1
            sighash = key_sig[64] if len(key_sig) == 65 else SIGHASH.DEFAULT
            digest = parsed.sighash(index, sighash=sighash)
            output_key = ec.PublicKey.from_xonly(inp.utxo.script_pubkey.data[2:34])
            if not output_key.schnorr_verify(ec.SchnorrSig.parse(key_sig[:64]), digest):
                failures.append(f"input {index}: taproot key-path signature does not verify")
    return {"ecdsa": ecdsa, "schnorr": schnorr, "failures": failures}


def main():
    request = json.load(sys.stdin)
    action = request.get("action")
    if action == "create":
        creator = {"embit": create_embit, "bdk": create_bdk}[request["creator"]]
        answer = {"psbt": creator(request["kind"], request["mnemonics"])}
    elif action == "sign":
        answer = sign(request)
    elif action == "finalize":
        answer = finalize(request)
    elif action == "verify":
        answer = verify(request)
    elif action == "check_signatures":
        answer = check_signatures(request)
    elif action == "accounts":
        external, internal = descriptors(request["kind"], request["mnemonics"])
        answer = {"external": external, "internal": internal}
    else:
        fail(f"unknown action {action!r}")
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
