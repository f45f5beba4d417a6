#!/usr/bin/env python3
"""Writes the seed corpus of FuzzChance: Chance wallet `multisig:` texts made with embit (a 2-of-3 P2SH multisig over
keys from fixed seeds; unsigned, one and two signatures, one and two inputs), malformed variants (unknown field, bad
hex, a position outside the script, a signature under the wrong position), and previous-transaction files (hex lines
and concatenated binary). Files are named by the SHA-256 of their content."""

import hashlib
import json
import pathlib

from embit import bip32, script
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "Fuzz" / "corpus" / "FuzzChance"


def write(data: bytes) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / hashlib.sha256(data).hexdigest()[:16]).write_bytes(data)


def text(tx: Transaction, redeem: bytes, signatures: dict) -> str:
    body = {"rawTx": tx.serialize().hex(), "redeemScriptHex": redeem.hex(), "keySignatures": signatures}
    return "multisig:" + json.dumps(body)


def main() -> None:
    keys = [bip32.HDKey.from_seed(bytes([n]) * 32).derive("m/45h/0/0").key for n in (1, 2, 3)]
    pubs = [k.get_public_key() for k in keys]
    redeem = script.multisig(2, pubs).data
    p2sh = script.p2sh(script.Script(redeem))
    for inputs in (1, 2):
        prev = Transaction(
            version=2,
            vin=[TransactionInput(b"\x07" * 32, 0)],
            vout=[TransactionOutput(50_000, p2sh) for _ in range(inputs)],
        )
        tx = Transaction(
            version=2,
            vin=[TransactionInput(prev.txid(), i) for i in range(inputs)],
            vout=[TransactionOutput(40_000 * inputs, script.Script(b"\x51"))],
        )

        def sigs(key_index: int, tx: Transaction = tx, inputs: int = inputs) -> list:
            out = []
            for i in range(inputs):
                digest = tx.sighash_legacy(i, script.Script(redeem), SIGHASH.ALL)
                out.append((keys[key_index].sign(digest).serialize() + bytes([SIGHASH.ALL])).hex())
            return out

        write(text(tx, redeem, {}).encode())
        write(text(tx, redeem, {"1": sigs(1)}).encode())
        write(text(tx, redeem, {"0": sigs(0), "2": sigs(2)}).encode())
        write(text(tx, redeem, {"2": sigs(0)}).encode())  # wrong position
        write(text(tx, redeem, {"5": sigs(0)}).encode())  # no such position
        write(text(tx, redeem, {}).replace('"keySignatures"', '"extra": 1, "keySignatures"').encode())
        write(text(tx, redeem, {}).replace('"rawTx": "', '"rawTx": "zz').encode())
        write((prev.serialize().hex() + "\n" + tx.serialize().hex() + "\n").encode())
        write(prev.serialize() + tx.serialize())


if __name__ == "__main__":
    main()
