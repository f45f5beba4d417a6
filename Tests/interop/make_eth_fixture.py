#!/usr/bin/env python3
"""Writes Tests/Vectors/ethereum/eth_account_fixture.json: values computed by eth-account (a peer not written here),
which the Swift EthereumTests compare with. Run from the repository root: .venv/bin/python Tests/interop/make_eth_fixture.py

- addresses 0..20 of the BIP39 mnemonic below at m/44'/60'/0'/0/i (Account.from_mnemonic);
- an EIP-1559, an EIP-2930 and an EIP-155 legacy transaction built and signed by eth-account with key 0, the raw
  signed bytes and the signing hash;
- an EIP-191 personal message and EIP-712 `Mail` signed by eth-account with key 0;
- the EIP-712 signing hash of every message in eth-account's own test files (Tests/Vectors/ethereum/eip712/
  eth_account_valid_*.json, copied from eth-account's tests/eip712_messages)."""

import json
import pathlib

import eth_account
from eth_account import Account
from eth_account._utils.legacy_transactions import serializable_unsigned_transaction_from_dict
from eth_account.messages import _hash_eip191_message, encode_defunct, encode_typed_data
from eth_utils import to_checksum_address

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "Tests" / "Vectors" / "ethereum"
MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

Account.enable_unaudited_hdwallet_features()


def main():
    accounts = [Account.from_mnemonic(MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}") for i in range(21)]
    key0 = accounts[0]
    token = to_checksum_address("0x" + "ab" * 20)
    other = to_checksum_address("0x" + "35" * 20)
    calldata = "0xa9059cbb" + "00" * 12 + "cd" * 20 + f"{12_500_000:064x}"
    txs = {
        "eip1559": {
            "type": 2,
            "chainId": 1,
            "nonce": 7,
            "maxPriorityFeePerGas": 1_500_000_000,
            "maxFeePerGas": 30_000_000_000,
            "gas": 60_000,
            "to": token,
            "value": 0,
            "data": calldata,
            "accessList": [],
        },
        "eip2930": {
            "type": 1,
            "chainId": 11155111,
            "nonce": 0,
            "gasPrice": 20_000_000_000,
            "gas": 50_000,
            "to": other,
            "value": 10**18,
            "data": "0x",
            "accessList": [
                {"address": to_checksum_address("0x" + "de" * 20), "storageKeys": ["0x" + "00" * 31 + "01"]}
            ],
        },
        "eip155": {
            "chainId": 137,
            "nonce": 3,
            "gasPrice": 50_000_000_000,
            "gas": 21_000,
            "to": other,
            "value": 123_456_789,
            "data": "0x",
        },
    }
    signed = {}
    for name, tx in txs.items():
        s = key0.sign_transaction(tx)
        unsigned = serializable_unsigned_transaction_from_dict(tx)
        signed[name] = {
            "tx": tx,
            "signing_hash": unsigned.hash().hex().removeprefix("0x"),
            "raw": s.raw_transaction.hex().removeprefix("0x"),
            "v": s.v,
        }
    message = b"Airlock personal message \xe2\x9c\x93"
    personal = key0.sign_message(encode_defunct(primitive=message))
    mail = json.loads((VECTORS / "eip712" / "eip712_example_mail.json").read_text())["typed_data"]
    typed = key0.sign_message(encode_typed_data(full_message=mail))
    hashes = {}
    for file in ["eth_account_valid_for_all.json", "eth_account_valid_py_and_metamask.json"]:
        for name, msg in json.loads((VECTORS / "eip712" / file).read_text()).items():
            hashes[name] = _hash_eip191_message(encode_typed_data(full_message=msg)).hex().removeprefix("0x")
    out = {
        "generator": "Tests/interop/make_eth_fixture.py with eth-account " + eth_account.__version__,
        "mnemonic": MNEMONIC,
        "addresses": [{"path": f"m/44'/60'/0'/0/{i}", "address": a.address} for i, a in enumerate(accounts)],
        "transactions": signed,
        "personal": {"message_hex": message.hex(), "signature": personal.signature.hex().removeprefix("0x")},
        "eip712_mail": {"signature": typed.signature.hex().removeprefix("0x")},
        "eip712_hashes": hashes,
    }
    (VECTORS / "eth_account_fixture.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
