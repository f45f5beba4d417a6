"""Ethereum across the gap as a user does it (issue 15): an `ur:eth-sign-request` too large for one QR code goes in as
shuffled multi-part PNG frames (UR fountain parts made by the small encoder here, drawn with segno) and the
`ur:eth-signature` comes back as PNG (read with zbarimg); and an EIP-1559 transfer signed by `airlock-signer` is
assembled here, sent to the development chain (scripts/devnet: eth-tester on py-evm), mined, and moves the value."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
import uuid
import zlib
from pathlib import Path

import cbor2
import pytest
import rlp
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from signer_psbt import _bytewords_minimal, _cbor_head, read_qr_pngs, write_qr_pngs
from test_eth_signer import MNEMONIC, keypath, restored_signer, unsigned_bytes, ur_cbor

REPO = Path(__file__).resolve().parents[2]
Account.enable_unaudited_hdwallet_features()


@pytest.fixture
def signer(run, home):
    return restored_signer(run, home, "pw-devnet")


def ur_parts(message: bytes, ur_type: str, max_fragment: int = 120) -> list[str]:
    """`message` (CBOR) as the pure fountain parts of BCR-2020-005: `ur:TYPE/SEQ-LEN/…`, each part CBOR
    [seq, len, messageLen, crc32, fragment]."""
    count = -(-len(message) // max_fragment)
    frag_len = -(-len(message) // count)
    padded = message + bytes(frag_len * count - len(message))
    crc = zlib.crc32(message)
    frames = []
    for seq in range(1, count + 1):
        fragment = padded[(seq - 1) * frag_len : seq * frag_len]
        part = (
            _cbor_head(4, 5)
            + _cbor_head(0, seq)
            + _cbor_head(0, count)
            + _cbor_head(0, len(message))
            + _cbor_head(0, crc)
            + _cbor_head(2, len(fragment))
            + fragment
        )
        frames.append(f"ur:{ur_type}/{seq}-{count}/{_bytewords_minimal(part)}".upper())
    return frames


def request_cbor(data: bytes, data_type: int, chain_id: int, index: int = 0) -> tuple[bytes, bytes]:
    request_id = uuid.uuid4().bytes
    fields = {1: cbor2.CBORTag(37, request_id), 2: data, 3: data_type, 4: chain_id, 5: keypath(index), 7: "pytest"}
    return request_id, cbor2.dumps(fields)


def test_multipart_png_request_is_answered_as_png(signer, home, vectors):
    account = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0")
    tx = {
        "type": 2,
        "chainId": 1,
        "nonce": 1,
        "maxPriorityFeePerGas": 10**9,
        "maxFeePerGas": 20 * 10**9,
        "gas": 200_000,
        "to": to_checksum_address("0x" + "77" * 20),
        "value": 0,
        "data": "0x12345678" + "ab" * 600,
        "accessList": [],
    }
    request_id, message = request_cbor(unsigned_bytes(tx), 4, 1)
    frames = ur_parts(message, "eth-sign-request")
    assert len(frames) >= 5
    pngs = write_qr_pngs(frames, home.root / "request")
    out = home.root / "answer" / "signature.png"
    out.parent.mkdir()
    # The calldata (made large to need several frames) calls no function the signer decodes: blind, so allowed.
    proc = signer("sign", str(home.root / "request"), "--yes", "--allow-blind", "--qr", str(out), "--json", check=True)
    report = json.loads(proc.stdout)
    assert report["verdict"] == "signed" and report["written"] and len(pngs) == len(frames)
    written = sorted(Path(p) for p in report["written"])
    assert all(p.suffix == ".png" and p.parent == out.parent for p in written)
    texts = read_qr_pngs(written)
    assert len(texts) == 1 and texts[0].lower().startswith("ur:eth-signature/")
    got = cbor2.loads(ur_cbor(vectors, texts[0]))
    assert got[1] in (cbor2.CBORTag(37, request_id), request_id, uuid.UUID(bytes=request_id))
    expected = account.sign_transaction(tx)
    assert got[2] == expected.r.to_bytes(32, "big") + expected.s.to_bytes(32, "big") + bytes([expected.v])
    # Control: one frame missing is named, exit 2, nothing written.
    missing = home.root / "missing"
    write_qr_pngs(frames[1:], missing)
    out2 = home.root / "answer2.png"
    proc = signer("sign", str(missing), "--yes", "--allow-blind", "--qr", str(out2))
    assert proc.returncode == 2 and not list(home.root.glob("answer2*"))


def rpc(port: int, method: str, *params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.loads(response.read())
    assert "error" not in answer, answer
    return answer["result"]


@pytest.fixture
def devnet():
    env = dict(os.environ, PYTHONPATH=str(REPO / "scripts" / "devnet"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "devnet.node", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    line = proc.stdout.readline()
    assert line, "the devnet node printed nothing"
    yield json.loads(line)
    proc.terminate()
    proc.wait(timeout=30)


def test_signed_transfer_is_mined_by_py_evm(signer, devnet, vectors):
    port, chain_id = devnet["rpc"], devnet["chain_id"]
    sender = Account.from_mnemonic(MNEMONIC, account_path="m/44'/60'/0'/0/0").address
    recipient = to_checksum_address("0x" + "5a" * 20)
    rpc(port, "dev_faucet", sender, hex(10**18))
    assert int(rpc(port, "eth_getBalance", recipient, "latest"), 16) == 0
    value = 123_456_789_000
    tx = {
        "type": 2,
        "chainId": chain_id,
        "nonce": int(rpc(port, "eth_getTransactionCount", sender, "pending"), 16),
        "maxPriorityFeePerGas": 10**9,
        "maxFeePerGas": 10 * 10**9,
        "gas": 21_000,
        "to": recipient,
        "value": value,
        "data": "0x",
        "accessList": [],
    }
    _, message = request_cbor(unsigned_bytes(tx), 4, chain_id)
    text = f"ur:eth-sign-request/{_bytewords_minimal(message)}"
    proc = signer("sign", "-", "--yes", input=text, check=True)
    sig = cbor2.loads(ur_cbor(vectors, proc.stdout.decode()))[2]
    r, s, y_parity = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big"), sig[64]
    assert y_parity in (0, 1)
    fields = [
        chain_id,
        tx["nonce"],
        tx["maxPriorityFeePerGas"],
        tx["maxFeePerGas"],
        tx["gas"],
        bytes.fromhex(recipient[2:]),
        value,
        b"",
        [],
        y_parity,
        r,
        s,
    ]
    raw = b"\x02" + rlp.encode(fields)
    txid = rpc(port, "eth_sendRawTransaction", "0x" + raw.hex())
    assert txid == "0x" + keccak(raw).hex()
    receipt = rpc(port, "eth_getTransactionReceipt", txid)
    assert int(receipt["status"], 16) == 1 and int(receipt["blockNumber"], 16) > 0
    assert to_checksum_address(receipt["from"]) == sender
    assert int(rpc(port, "eth_getBalance", recipient, "latest"), 16) == value
    # The journal names the same transaction hash the chain does.
    entries = json.loads(signer("audit", "--json", check=True).stdout)
    assert entries[-1]["txid"] == txid and entries[-1]["chain_id"] == chain_id
    # Control: the same signature on a changed value is rejected by the chain (recovers to another, unfunded sender).
    fields[6] = value + 1
    bad = b"\x02" + rlp.encode(fields)
    body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "eth_sendRawTransaction", "params": ["0x" + bad.hex()]})
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert "error" in json.loads(response.read())
