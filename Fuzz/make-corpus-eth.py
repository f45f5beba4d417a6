#!/usr/bin/env python3
"""Writes the seed corpora of FuzzRLP, FuzzEIP4527 and FuzzTypedData from the vectors in Tests/Vectors/ethereum
(upstream files only): RLP `out` strings (valid and invalid) and signed/unsigned transactions; the CBOR of Keystone's
EIP-4527 URs and their UR text; every EIP-712 message. Files are named by the SHA-256 of their content."""

import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
VEC = ROOT / "Tests" / "Vectors" / "ethereum"
OUT = ROOT / "Fuzz" / "corpus"
WORDS = None


def write(target, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha256(data).hexdigest()[:16]).write_bytes(data)


def bytewords_minimal_decode(body):
    # Minimal bytewords: first+last letter of each word; the table is BCR-2020-012's, from Tests/Vectors/bcur.
    table = json.loads((ROOT / "Tests" / "Vectors" / "bcur" / "bytewords_wordlist.json").read_text())["minimal"]
    index = {w: i for i, w in enumerate(table)}
    raw = bytes(index[body[i : i + 2]] for i in range(0, len(body), 2))
    return raw[:-4]  # drop the CRC-32


def main():
    for name in ["rlptest.json", "invalidRLPTest.json"]:
        for case in json.loads((VEC / "rlp" / name).read_text()).values():
            out = case["out"].removeprefix("0x")
            write("FuzzRLP", bytes.fromhex(out))
    eip155 = json.loads((VEC / "eip155_example.json").read_text())["examples"]
    for e in eip155:
        write("FuzzRLP", bytes.fromhex(e["signing_data"].removeprefix("0x")))
    for e in json.loads((VEC / "ethereumjs_eip1559.json").read_text()):
        wrapped = bytes.fromhex(e["signedTransactionRLP"].removeprefix("0x"))
        write("FuzzRLP", wrapped)
        write("FuzzRLP", wrapped[2:])  # the typed transaction inside the 0xb8 0x73 string header
    ks = json.loads((VEC / "eip4527" / "keystone_ur_registry_eth.json").read_text())
    for entry in ks["eth_sign_request"] + ks["eth_signature"]:
        body = entry["ur"].split("/")[-1]
        write("FuzzEIP4527", bytewords_minimal_decode(body))
        write("FuzzEIP4527", entry["ur"].encode())
    write(
        "FuzzTypedData",
        json.dumps(json.loads((VEC / "eip712" / "eip712_example_mail.json").read_text())["typed_data"]).encode(),
    )
    for name in [
        "eth_account_valid_for_all.json",
        "eth_account_valid_py_and_metamask.json",
        "eth_account_invalid.json",
    ]:
        for message in json.loads((VEC / "eip712" / name).read_text()).values():
            write("FuzzTypedData", json.dumps(message).encode())


if __name__ == "__main__":
    main()
