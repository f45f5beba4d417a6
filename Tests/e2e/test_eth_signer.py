"""Ethereum on the signer (docs/architecture.md section 10, issue 15) against eth-account and cbor2, peers not written here:
addresses 0-20 equal eth-account's; EIP-1559, EIP-2930 and EIP-155 transactions built by eth-account and sent as an
EIP-4527 `ur:eth-sign-request` (CBOR by cbor2) come back from `airlock-signer sign` as an `ur:eth-signature` whose
r, s, v equal eth-account's byte for byte; personal and EIP-712 signatures recover to the address; the refusals exit 4
and malformed requests exit 2."""

from __future__ import annotations

import hashlib
import json
import uuid
import zlib

import cbor2
import pytest
import rlp
from eth_account import Account
from eth_account._utils.legacy_transactions import serializable_unsigned_transaction_from_dict
from eth_account._utils.transaction_utils import transaction_rpc_to_rlp_structure
from eth_account.messages import encode_defunct, encode_typed_data
from eth_account.typed_transactions import TypedTransaction
from eth_utils import keccak, to_checksum_address

MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
KDF = ["--kdf-memory", "64"]
Account.enable_unaudited_hdwallet_features()


def restored_signer(run, home, password: str):
    """`airlock-signer` on a vault restored from MNEMONIC: a function taking the command's arguments."""
    words = home.root / "words.txt"
    words.write_text(MNEMONIC + "\n")
    pw = home.root / "pw.txt"
    pw.write_text(password + "\n")
    run("airlock-signer", "restore", "--mnemonic-file", str(words), "--password-file", str(pw), *KDF, check=True)

    def _run(*args, input=None, check=False):
        return run("airlock-signer", *args, "--password-file", str(pw), input=input, check=check)

    return _run


@pytest.fixture
def signer(run, home):
    return restored_signer(run, home, "pw-eth")


def minimal_words(vectors):
    return json.loads((vectors / "bcur" / "bytewords_wordlist.json").read_text())["minimal"]


def ur_text(vectors, ur_type: str, cbor: bytes) -> str:
    """A single-part UR: minimal bytewords of the CBOR and its CRC-32 (BCR-2020-005, BCR-2020-012)."""
    words = minimal_words(vectors)
    body = cbor + zlib.crc32(cbor).to_bytes(4, "big")
    return f"ur:{ur_type}/" + "".join(words[b] for b in body)


def ur_cbor(vectors, text: str) -> bytes:
    index = {w: i for i, w in enumerate(minimal_words(vectors))}
    body = text.strip().split("/")[-1].lower()
    raw = bytes(index[body[i : i + 2]] for i in range(0, len(body), 2))
    assert zlib.crc32(raw[:-4]).to_bytes(4, "big") == raw[-4:]
    return raw[:-4]


def keypath(index: int) -> cbor2.CBORTag:
    components = [44, True, 60, True, 0, True, 0, False, index, False]
    return cbor2.CBORTag(304, {1: components})


def sign_request(vectors, data: bytes, data_type: int, chain_id, index=0, address: bytes | None = None):
    request_id = uuid.uuid4()
    fields = {1: cbor2.CBORTag(37, request_id.bytes), 2: data, 3: data_type}
    if chain_id is not None:
        fields[4] = chain_id
    fields[5] = keypath(index)
    if address is not None:
        fields[6] = address
    fields[7] = "pytest"
    return request_id, ur_text(vectors, "eth-sign-request", cbor2.dumps(fields))


def unsigned_bytes(tx: dict) -> bytes:
    """eth-account's own unsigned form of `tx` (what it hashes to sign), checked against its hash()."""
    unsigned = serializable_unsigned_transaction_from_dict(tx)
    if isinstance(unsigned, TypedTransaction):
        inner = unsigned.transaction
        fields = {k: v for k, v in inner.dictionary.items() if k not in ("v", "r", "s")}
        serializer = inner.__class__._unsigned_transaction_serializer
        out = bytes([inner.__class__.transaction_type]) + rlp.encode(
            serializer.from_dict(transaction_rpc_to_rlp_structure(fields))
        )
    else:
        out = rlp.encode(unsigned)
    assert keccak(out) == unsigned.hash()
    return out


def answer(vectors, proc) -> dict:
    assert proc.returncode == 0, proc.stderr.decode()
    return cbor2.loads(ur_cbor(vectors, proc.stdout.decode()))


def test_addresses_0_to_20_equal_eth_account(signer):
    for i in range(21):
        expected = Account.from_mnemonic(MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}").address
        out = json.loads(signer("address", "--chain", "eth", "--index", str(i), "--json", check=True).stdout)
        assert out == {"address": expected, "path": f"m/44'/60'/0'/0/{i}", "files": []}


TOKEN = to_checksum_address("0x" + "ab" * 20)
OTHER = to_checksum_address("0x" + "35" * 20)
TRANSFER = "0xa9059cbb" + "00" * 12 + "cd" * 20 + f"{12_500_000:064x}"
TXS = {
    "eip1559": {
        "type": 2,
        "chainId": 1,
        "nonce": 7,
        "maxPriorityFeePerGas": 1_500_000_000,
        "maxFeePerGas": 30_000_000_000,
        "gas": 60_000,
        "to": TOKEN,
        "value": 0,
        "data": TRANSFER,
        "accessList": [],
    },
    "eip2930": {
        "type": 1,
        "chainId": 11155111,
        "nonce": 0,
        "gasPrice": 20_000_000_000,
        "gas": 50_000,
        "to": OTHER,
        "value": 10**18,
        "data": "0x",
        "accessList": [{"address": to_checksum_address("0x" + "de" * 20), "storageKeys": ["0x" + "00" * 31 + "01"]}],
    },
    "eip155": {
        "chainId": 137,
        "nonce": 3,
        "gasPrice": 50_000_000_000,
        "gas": 21_000,
        "to": OTHER,
        "value": 123_456_789,
        "data": "0x",
    },
}


@pytest.mark.parametrize("name", sorted(TXS))
def test_transaction_signature_equals_eth_account(signer, vectors, name):
    tx = TXS[name]
    account = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    expected = account.sign_transaction(tx)
    data = unsigned_bytes(tx)
    request_id, text = sign_request(
        vectors, data, 4 if "type" in tx else 1, tx["chainId"], address=bytes.fromhex(account.address[2:])
    )
    got = answer(vectors, signer("sign", "-", "--yes", input=text))
    assert got[1] == cbor2.CBORTag(37, request_id.bytes) or got[1] == request_id
    sig = got[2]
    assert sig[:32] == expected.r.to_bytes(32, "big")
    assert sig[32:64] == expected.s.to_bytes(32, "big")
    assert int.from_bytes(sig[64:], "big") == expected.v


def test_erc20_review_and_json(signer, vectors):
    tx = TXS["eip1559"]
    _, text = sign_request(vectors, unsigned_bytes(tx), 4, 1)
    out = json.loads(signer("sign", "-", "--yes", "--json", input=text, check=True).stdout)
    review = {line["label"]: line["value"] for line in out["review"]}
    assert out["verdict"] == "signed" and out["chain_id"] == 1
    assert review["ERC-20"] == f"transfer 12500000 base units to {to_checksum_address('0x' + 'cd' * 20)}"
    assert review["Worst-case fee"] == "0.001800000000000000 ETH"
    assert review["Max fee"] == "30 gwei"


def test_personal_and_typed_data_recover_to_the_address(signer, vectors):
    address = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/2").address
    message = "Airlock ✓ personal message".encode()
    _, text = sign_request(vectors, message, 3, 1, index=2)
    sig = answer(vectors, signer("sign", "-", "--yes", input=text))[2]
    assert Account.recover_message(encode_defunct(primitive=message), signature=sig) == address
    mail = json.loads((vectors / "ethereum" / "eip712" / "eip712_example_mail.json").read_text())["typed_data"]
    _, text = sign_request(vectors, json.dumps(mail).encode(), 2, 1, index=2)
    sig = answer(vectors, signer("sign", "-", "--yes", input=text))[2]
    assert Account.recover_message(encode_typed_data(full_message=mail), signature=sig) == address
    # Control: the same signature does not recover to the address for another message.
    assert Account.recover_message(encode_defunct(primitive=b"other"), signature=sig) != address


def test_refusals_exit_4_with_controls(signer, vectors):
    tx = dict(TXS["eip1559"])
    # Fee: 60,000 gas x 30 gwei = 0.0018 ETH.
    _, text = sign_request(vectors, unsigned_bytes(tx), 4, 1)
    assert signer("sign", "-", "--yes", "--max-fee-eth", "0.0017", input=text).returncode == 4
    assert signer("sign", "-", "--yes", "--max-fee-eth", "0.0018", input=text).returncode == 0
    # Address: the request names index 1's address for index 0's path.
    wrong = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/1").address
    right = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0").address
    _, text = sign_request(vectors, unsigned_bytes(tx), 4, 1, address=bytes.fromhex(wrong[2:]))
    proc = signer("sign", "-", "--yes", input=text)
    assert proc.returncode == 4 and b"names" in proc.stderr
    _, text = sign_request(vectors, unsigned_bytes(tx), 4, 1, address=bytes.fromhex(right[2:]))
    assert signer("sign", "-", "--yes", input=text).returncode == 0
    # No chain id: a legacy transaction without EIP-155.
    legacy = rlp.encode([3, 50_000_000_000, 21_000, bytes.fromhex(OTHER[2:]), 1, b""])
    _, text = sign_request(vectors, legacy, 1, None)
    assert signer("sign", "-", "--yes", input=text).returncode == 4
    # Chain id contradiction: the request says 137, the transaction 1.
    _, text = sign_request(vectors, unsigned_bytes(tx), 4, 137)
    assert signer("sign", "-", "--yes", input=text).returncode == 4


def test_malformed_requests_exit_2(signer, vectors):
    # Non-canonical RLP in the sign-data (nonce 0x0007 with a leading zero).
    bad_rlp = b"\x02" + rlp.encode([1, b"\x00\x07", 1, 2, 21000, b"", 0, b"", []])
    _, text = sign_request(vectors, bad_rlp, 4, 1)
    assert signer("sign", "-", "--yes", input=text).returncode == 2
    # CBOR that is not an eth-sign-request (data type 9).
    fields = {2: b"\xc0", 3: 9, 5: keypath(0)}
    text = ur_text(vectors, "eth-sign-request", cbor2.dumps(fields))
    assert signer("sign", "-", "--yes", input=text).returncode == 2


def test_export_crypto_hdkey(signer, vectors):
    out = json.loads(signer("export", "--chain", "eth", "--json", check=True).stdout)
    assert out["path"] == "m/44'/60'/0'"
    key = cbor2.loads(ur_cbor(vectors, out["ur"]))
    # The key data is the compressed public key of eth-account's key at m/44'/60'/0'.
    account_key = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'")._key_obj.public_key
    assert key[3] == account_key.to_compressed_bytes()
    assert len(key[4]) == 32
    assert key[6].tag == 304 and list(key[6].value[1]) == [44, True, 60, True, 0, True]
    assert json.loads(json.dumps(list(key[7].value[1]))) == [
        0,
        False,
        [],
        False,
    ]  # cbor2 5 decodes arrays as lists, 6 as tuples
    assert key[10] == "account.standard"
    expected = [Account.from_mnemonic(MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}").address for i in range(5)]
    assert [a["address"] for a in out["addresses"]] == expected


def test_eth_signatures_are_in_the_audit_journal(signer, vectors, home):
    """An Ethereum signature is journalled like a PSBT (docs/formats.md): kind, chain, from, to, value, worst-case
    fee, the ERC-20 call and the transaction hash eth-account computes; `audit --verify` checks it, and an edited
    value is found (exit 3). A refused request leaves no entry."""
    tx = TXS["eip1559"]
    account = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    expected = account.sign_transaction(tx)
    data = unsigned_bytes(tx)
    _, text = sign_request(vectors, data, 4, 1)
    # Refused (fee above the maximum): nothing is journalled.
    assert signer("sign", "-", "--yes", "--max-fee-eth", "0.001", input=text).returncode == 4
    assert json.loads(signer("audit", "--json", check=True).stdout) == []
    answer(vectors, signer("sign", "-", "--yes", input=text))
    message = b"journal me"
    _, text = sign_request(vectors, message, 3, 1, index=1)
    answer(vectors, signer("sign", "-", "--yes", input=text))

    entries = json.loads(signer("audit", "--json", check=True).stdout)
    assert [e["seq"] for e in entries] == [1, 2]
    first, second = entries
    assert first["chain"] == "eth" and first["kind"] == "transaction" and first["chain_id"] == 1
    assert first["from"] == account.address and first["to"] == TOKEN
    assert first["value_wei"] == "0" and first["fee_wei"] == str(60_000 * 30_000_000_000)
    assert first["call"] == f"transfer 12500000 base units to {to_checksum_address('0x' + 'cd' * 20)}"
    assert first["txid"] == "0x" + bytes(expected.hash).hex()
    assert first["data_sha256"] == hashlib.sha256(data).hexdigest() and "psbt_sha256" not in first
    assert (
        second["kind"] == "personal-message"
        and second["txid"]
        == "0x" + bytes(keccak(b"\x19Ethereum Signed Message:\n" + str(len(message)).encode() + message)).hex()
    )
    assert second["from"] == Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/1").address
    listing = signer("audit", check=True).stdout.decode()
    assert f"eth transaction 0x{bytes(expected.hash).hex()} chain 1 from {account.address}" in listing
    assert f"0 wei -> {TOKEN}" in listing

    report = json.loads(signer("audit", "--verify", "--json", check=True).stdout)
    assert report["entries"] == 2 and report["keyed"] == 2 and report["intact"]
    journal = home.vault.parent / (home.vault.name + ".audit")
    lines = journal.read_text().splitlines()
    assert '"value_wei":"0"' in lines[0]
    journal.write_text("\n".join([lines[0].replace('"value_wei":"0"', '"value_wei":"1"'), lines[1]]) + "\n")
    proc = signer("audit", "--verify")
    assert proc.returncode == 3 and b"line 1" in proc.stderr


def test_unlimited_approval_and_permit_are_flagged(signer, vectors):
    """As a user sees the review (stderr): an unlimited ERC-20 approval and an EIP-2612 permit carry a warning; a
    finite approval and a plain typed message do not (controls)."""
    spender = to_checksum_address("0x" + "ee" * 20)

    def approve(amount: int) -> dict:
        data = "0x095ea7b3" + "00" * 12 + spender[2:].lower() + f"{amount:064x}"
        return dict(TXS["eip1559"], data=data)

    _, text = sign_request(vectors, unsigned_bytes(approve(2**256 - 1)), 4, 1)
    proc = signer("sign", "-", "--yes", input=text, check=True)
    assert f"ERC-20: approve UNLIMITED (in effect; {2**256 - 1} base units) for {spender}" in proc.stderr.decode()
    assert "!!! unlimited token approval" in proc.stderr.decode()
    _, text = sign_request(vectors, unsigned_bytes(approve(5_000_000)), 4, 1)
    proc = signer("sign", "-", "--yes", input=text, check=True)
    assert "approve 5000000 base units" in proc.stderr.decode() and "unlimited" not in proc.stderr.decode()

    permit = {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "Permit": [
                {"name": "owner", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ],
        },
        "primaryType": "Permit",
        "domain": {"name": "Token", "version": "1", "chainId": 1, "verifyingContract": TOKEN},
        "message": {
            "owner": Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0").address,
            "spender": spender,
            "value": 2**256 - 1,
            "nonce": 0,
            "deadline": 2**32,
        },
    }
    _, text = sign_request(vectors, json.dumps(permit).encode(), 2, 1)
    out = json.loads(signer("sign", "-", "--yes", "--json", input=text, check=True).stdout)
    assert any("permit" in w for w in out["warnings"])
    mail = json.loads((vectors / "ethereum" / "eip712" / "eip712_example_mail.json").read_text())["typed_data"]
    _, text = sign_request(vectors, json.dumps(mail).encode(), 2, 1)
    out = json.loads(signer("sign", "-", "--yes", "--json", input=text, check=True).stdout)
    assert out["warnings"] == []
