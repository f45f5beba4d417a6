"""Anti-exfil signing (issue 30 item 3) on the regtest node, every hand-over a QR PNG or a file.

`send --anti-exfil` adds the watcher's nonce commitments; the signer's first answer holds its commitments and no
signature; `finalize` on that answer reveals the watcher's entropy; the signer signs; `finalize`/`broadcast` check
every signature against its commitment. Each step is checked here by `secp256k1_spec` (written from SEC1, RFC6979 and
secp256k1-zkp's protocol description, never Airlock's code): the host commitments against the watcher's kept entropy,
the signer's commitments against RFC6979 with the host commitment as extra data, the signatures' r against
x(R1 + t·G).

Attacks, each beside its control: a stand-in signer written here (not a flag of the real binary) that ignores the
host's entropy is refused with exit 4, while the same stand-in following the protocol is accepted; a retry whose
signer commitment changed is refused, while a retry with the same commitment is accepted.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import secp256k1_spec as spec
from embit.ec import PublicKey
from embit.psbt import PSBT
from roundtrip_helpers import Watcher, outside_address, outside_holds
from signer_psbt import Vault, embit_root, psbt_from_frames, read_qr_pngs
from test_roundtrip import frames, fund_from_receive_qrs, node_url

AMOUNTS = [300_000, 200_000]
SEND = 420_000
MISMATCH = "the signer's signature does not match its commitment: it may be leaking your keys"
AE = b"\xfc\x02ae"


def setup(run, home, bin_dir, node, tmp_path: Path):
    work = tmp_path / "qr"
    work.mkdir()
    vault = Vault(bin_dir, home.env, home.root, "solo")
    vault.run("export", "--script", "wpkh", "--qr", str(work / "export.png"), check=True)
    watcher = Watcher(run, node)
    watcher("import", work / "export.png", "--name", "solo", "--network", "regtest")
    watcher("node", "set", node_url(node, "electrum"))
    fund_from_receive_qrs(watcher, node, work, AMOUNTS)
    return work, vault, watcher


def read_frames(directory: Path, stem: str) -> tuple[bytes, int]:
    pngs = frames(directory, stem)
    return psbt_from_frames(read_qr_pngs(pngs)), len(pngs)


def field(inp, subtype: int, pubkey: bytes) -> bytes | None:
    return inp.unknown.get(AE + bytes([subtype]) + pubkey)


def keys_of(psbt: PSBT):
    """(input index, compressed public key, derivation) of every input key."""
    for i, inp in enumerate(psbt.inputs):
        for pub, der in inp.bip32_derivations.items():
            yield i, pub.sec(), der


def session(home, txid: str) -> dict:
    path = home.data_dir / "psbt" / f"{txid}.antiexfil.json"
    assert path.stat().st_mode & 0o077 == 0, oct(path.stat().st_mode)
    kept = json.loads(path.read_text())
    return {(e["input"], bytes.fromhex(e["public_key"])): e for e in kept["entries"]}


def secret_of(vault: Vault, der) -> int:
    return int.from_bytes(embit_root(vault.mnemonic).derive(der.derivation).key.secret, "big")


def partial_sigs(psbt: PSBT) -> int:
    return sum(len(inp.partial_sigs) for inp in psbt.inputs)


def start(watcher: Watcher, home, work: Path) -> tuple[str, dict, PSBT, dict]:
    """`send --anti-exfil` as QR frames; the host commitments checked against the kept entropy."""
    outside = outside_address()
    sent = watcher.json(
        "send", "--anti-exfil", "--to", outside, "--amount", f"{SEND}sat", "--fee-rate", "2",
        "--qr", work / "psbt.png",
    )  # fmt: skip
    raw, _ = read_frames(work, "psbt")
    request = PSBT.parse(raw)
    kept = session(home, sent["txid"])
    assert len(kept) == len(request.inputs) >= 2
    for i, pub, _ in keys_of(request):
        entropy = bytes.fromhex(kept[(i, pub)]["entropy"])
        assert field(request.inputs[i], 0, pub) == spec.host_commitment(entropy)
        assert field(request.inputs[i], 2, pub) is None, "the entropy must not leave the watcher before round 2"
    return outside, sent, request, kept


def test_anti_exfil_round_trip_retry_rule(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    work, vault, watcher = setup(run, home, bin_dir, node, tmp_path)
    outside, sent, request, kept = start(watcher, home, work)
    for name in ("r1", "r2", "r3"):
        (tmp_path / name).mkdir()

    # Round 1: the real signer answers with its commitments and no signature.
    first = vault.sign(*frames(work, "psbt"), args=("--qr", str(tmp_path / "r1" / "answer.png"), "--json"))
    assert "round 1 of 2" in first.stderr.decode() and "NO signature" in first.stderr.decode()
    assert json.loads(first.stdout)["anti_exfil"] == "commitments"
    raw1, frames1 = read_frames(tmp_path / "r1", "answer")
    answer1 = PSBT.parse(raw1)
    assert partial_sigs(answer1) == 0
    for i, pub, der in keys_of(request):
        msg = request.sighash(i)
        r1 = field(answer1.inputs[i], 1, pub)
        commitment = field(request.inputs[i], 0, pub)
        assert r1 == spec.signer_commitment(secret_of(vault, der), msg, commitment), f"input {i}: R1 off the spec"

    # The signer is deterministic: the same request gives the same commitments (what the retry rule relies on).
    vault.sign(*frames(work, "psbt"), args=("--out", str(tmp_path / "r1b.psbt")))
    repeat = PSBT.parse((tmp_path / "r1b.psbt").read_bytes())
    for i, pub, _ in keys_of(request):
        assert field(repeat.inputs[i], 1, pub) == field(answer1.inputs[i], 1, pub)

    # The watcher reveals its entropy.
    out = watcher.json("finalize", *frames(tmp_path / "r1", "answer"), "--qr", tmp_path / "r2" / "reveal.png")
    assert out["anti_exfil"] == "reveal" and out["keys"] == len(kept) and out["retry"] is False
    raw2, frames2 = read_frames(tmp_path / "r2", "reveal")
    reveal = PSBT.parse(raw2)
    for i, pub, _ in keys_of(request):
        assert field(reveal.inputs[i], 2, pub) == bytes.fromhex(kept[(i, pub)]["entropy"])

    # Retry rule, attack: a first answer whose commitment changed is refused (exit 4), nothing revealed.
    forged = PSBT.parse(raw1)
    i, pub, _ = next(keys_of(request))
    forged.inputs[i].unknown[AE + b"\x01" + pub] = spec.compress(spec.point_mul(12345))
    (tmp_path / "forged.psbt").write_bytes(forged.serialize())
    refused = watcher("finalize", tmp_path / "forged.psbt", "--out", tmp_path / "forged-reveal.psbt", check=False)
    assert refused.returncode == 4, refused.stderr
    assert b"commitment changed" in refused.stderr
    assert not (tmp_path / "forged-reveal.psbt").exists()
    # Control: the same answer again (a retry with the same entropy and the same commitment) is accepted.
    retry = watcher.json("finalize", tmp_path / "r1b.psbt", "--out", tmp_path / "reveal-again.psbt")
    assert retry["anti_exfil"] == "reveal" and retry["retry"] is True

    # Round 2: the signer signs with the tweaked nonces; each signature checked here against the spec.
    second = vault.sign(
        *frames(tmp_path / "r2", "reveal"), args=("--qr", str(tmp_path / "r3" / "signed.png"), "--json")
    )
    assert "round 2 of 2" in second.stderr.decode()
    assert json.loads(second.stdout)["anti_exfil"] == "signed"
    raw3, frames3 = read_frames(tmp_path / "r3", "signed")
    signed = PSBT.parse(raw3)
    checked = 0
    for i, pub, _ in keys_of(request):
        sigs = {p.sec(): s for p, s in signed.inputs[i].partial_sigs.items()}
        r, s = spec.der_decode(sigs[pub][:-1])
        entropy = bytes.fromhex(kept[(i, pub)]["entropy"])
        assert spec.host_verify(r, s, request.sighash(i), pub, entropy, field(answer1.inputs[i], 1, pub))
        checked += 1
    assert checked == len(kept)
    print(
        f"frames per round: request {len(frames(work, 'psbt'))}, commitments {frames1}, reveal {frames2}, signed {frames3}"
    )

    # The watcher checks too, then broadcasts; the node mines it.
    proc = watcher("broadcast", *frames(tmp_path / "r3", "signed"))
    txid = proc.stdout.decode().strip()
    assert txid == sent["txid"] and txid in node.cli("getrawmempool")
    node.mine(1)
    assert outside_holds(node, outside) == [(txid, SEND)]


def stand_in_answers(vault: Vault, request: PSBT, reveal: PSBT | None, honest: bool) -> PSBT:
    """A signer written here: round 1 (reveal None) commits to R1 = k·G; round 2 signs. Honest, it follows the
    protocol (k0 from RFC6979 with the host commitment, tweaked by the entropy); dishonest, it commits to the plain
    RFC6979 nonce and signs with that nonce, ignoring the host's entropy (the nonce it could bias to leak the key)."""
    answer = PSBT.parse((reveal or request).serialize())
    for i, pub, der in keys_of(request):
        inp = answer.inputs[i]
        secret, msg = secret_of(vault, der), request.sighash(i)
        commitment = field(inp, 0, pub)
        k0 = spec.rfc6979(secret, msg, commitment if honest else None)
        inp.unknown[AE + b"\x01" + pub] = spec.compress(spec.point_mul(k0))
        if reveal is None:
            continue
        entropy = field(inp, 2, pub)
        r, s = spec.anti_exfil_sign(secret, msg, entropy) if honest else spec.ecdsa_sign(secret, msg, k0)
        inp.partial_sigs[PublicKey.parse(pub)] = spec.der_encode(r, s) + b"\x01"
    return answer


def run_stand_in(watcher: Watcher, home, work: Path, vault: Vault, tmp_path: Path, honest: bool, name: str):
    _, sent, request, _ = start(watcher, home, work)
    round1 = stand_in_answers(vault, request, None, honest)
    (tmp_path / f"{name}-1.psbt").write_text(base64.b64encode(round1.serialize()).decode())
    watcher("finalize", tmp_path / f"{name}-1.psbt", "--out", tmp_path / f"{name}-reveal.psbt")
    reveal = PSBT.parse((tmp_path / f"{name}-reveal.psbt").read_bytes())
    signed = stand_in_answers(vault, request, reveal, honest)
    (tmp_path / f"{name}-2.psbt").write_bytes(signed.serialize())
    return sent, tmp_path / f"{name}-2.psbt"


def test_stand_in_signer_ignoring_entropy_is_caught(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    work, vault, watcher = setup(run, home, bin_dir, node, tmp_path)

    # Attack: the stand-in ignores the entropy; its signatures verify, but not against its commitment.
    _, bad = run_stand_in(watcher, home, work, vault, tmp_path, honest=False, name="evil")
    for command in ("finalize", "broadcast"):
        refused = watcher(command, bad, check=False)
        assert refused.returncode == 4, (command, refused.stderr)
        assert MISMATCH in refused.stderr.decode()
    assert node.cli("getrawmempool") == []

    # Control: the same stand-in following the protocol is accepted and its transaction mined.
    sent, good = run_stand_in(watcher, home, work, vault, tmp_path, honest=True, name="good")
    finalized = watcher.json("finalize", good)
    assert finalized["txid"] == sent["txid"]
    txid = watcher("broadcast", good).stdout.decode().strip()
    assert txid == sent["txid"] and txid in node.cli("getrawmempool")
