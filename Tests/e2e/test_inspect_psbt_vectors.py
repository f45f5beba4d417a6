"""`airlock-signer inspect` over every PSBT vector: valid ones exit 0 with the right transaction id, invalid ones
exit 2 with the fault named (BIP174, BIP370, BIP371, BIP373 and Bitcoin Core's rpc_psbt.json)."""

import base64
import hashlib
import json

from embit.psbt import PSBT as EmbitPSBT


def _load(vectors, name):
    return json.loads((vectors / "psbt" / name).read_text())


def _read_compact(data: bytes, at: int):
    first = data[at]
    if first < 0xFD:
        return first, at + 1
    size = {0xFD: 2, 0xFE: 4, 0xFF: 8}[first]
    return int.from_bytes(data[at + 1 : at + 1 + size], "little"), at + 1 + size


def _unsigned_txid(raw: bytes) -> str:
    """The txid of a v0 PSBT's global unsigned transaction, read straight from the bytes (key type 0x00)."""
    at = 5
    while True:
        key_len, at = _read_compact(raw, at)
        assert key_len > 0, "no unsigned transaction in the global map"
        key = raw[at : at + key_len]
        at += key_len
        value_len, at = _read_compact(raw, at)
        value = raw[at : at + value_len]
        at += value_len
        if key == b"\x00":
            return hashlib.sha256(hashlib.sha256(value).digest()).digest()[::-1].hex()


def _cases(vectors):
    valid, invalid = [], []
    for name in ("bip174_vectors.json", "bip370_vectors.json", "bip371_vectors.json", "bip373_vectors.json"):
        data = _load(vectors, name)
        for case in data["invalid"]:
            invalid.append((f"{name}#{case.get('bip_index')}", case["base64"]))
        for case in data["valid"]:
            for variant in case.get("variants") or [case]:
                valid.append((f"{name}#{case.get('bip_index')}", variant["base64"]))
    core = _load(vectors, "bitcoin_core_rpc_psbt.json")
    valid += [(f"core valid {i}", b64) for i, b64 in enumerate(core["valid"])]
    invalid += [(f"core invalid {i}", b64) for i, b64 in enumerate(core["invalid"])]
    invalid += [(f"core invalid_with_msg {i}", pair[0]) for i, pair in enumerate(core["invalid_with_msg"])]
    return valid, invalid


def test_every_vector_through_inspect(run, vectors, home):
    valid, invalid = _cases(vectors)
    assert len(valid) > 50 and len(invalid) > 90
    for label, b64 in valid:
        path = home.root / "in.psbt"
        path.write_text(b64)
        proc = run("airlock-signer", "inspect", str(path), "--json")
        assert proc.returncode == 0, f"{label}: {proc.stderr.decode()}"
        report = json.loads(proc.stdout)
        assert report["type"] == "psbt", label
        raw = base64.b64decode(b64)
        if report["psbt_version"] == 0:
            # The unsigned transaction's id, hashed here from the global map's bytes (embit cannot read every
            # vector: it takes a zero-input transaction's count for a segwit marker).
            assert report["txid"] == _unsigned_txid(raw), label
    for label, b64 in invalid:
        path = home.root / "bad.psbt"
        path.write_text(b64)
        proc = run("airlock-signer", "inspect", str(path), "--as", "psbt")
        assert proc.returncode == 2, f"{label}: exit {proc.returncode}, {proc.stdout.decode()[:200]}"
        message = proc.stderr.decode()
        assert "invalid PSBT:" in message and len(message.split("invalid PSBT:")[1].strip()) > 10, label


def test_binary_psbt_and_outputs(run, vectors, home):
    data = _load(vectors, "bip174_vectors.json")
    case = data["valid"][2]
    path = home.root / "binary.psbt"
    path.write_bytes(bytes.fromhex(case["hex"]))
    proc = run("airlock-signer", "inspect", str(path), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    report = json.loads(proc.stdout)
    tx = EmbitPSBT.parse(bytes.fromhex(case["hex"])).tx
    assert [o["amount"] for o in report["outputs"]] == [o.value for o in tx.vout]
    assert [o["script"] for o in report["outputs"]] == [o.script_pubkey.data.hex() for o in tx.vout]
