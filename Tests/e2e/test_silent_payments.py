"""Silent payments across the air gap (issue 31; BIP352, BIP374, BIP375), on the regtest node, through QR PNGs.

The watcher sends to a `sprt1…` address: its PSBT (version 2) names the address (PSBT_OUT_SP_V0_INFO) and no script.
The signer reads the frames, adds its ECDH share with a DLEQ proof, computes the output script and signs; the
watcher verifies every share and script, finalizes and broadcasts; the node mines. Then a receiver written here
from BIP352's specification, with the recipient's scan and spend keys and the affine point arithmetic of secp256k1_spec.py (written from
SEC 1; no code of the product and none copied), finds the payment in the mined transaction.

Attacks beside their controls: a share whose DLEQ proof was altered, an output script the coordinator filled in, a
segwit v2 input and a sighash other than ALL are each refused with exit 4.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zlib
from pathlib import Path

import pytest
from embit import bech32
from roundtrip_helpers import Watcher
from secp256k1_spec import FIELD, ORDER, G, compress, decompress, point_add, point_mul, tagged
from signer_psbt import Vault, read_qr_pngs
from test_roundtrip import frames, fund_from_receive_qrs, node_url

SEND = 420_000
AMOUNTS = [300_000, 200_000]

# PSBT key types (BIP174, BIP370, BIP375).
GLOBAL_TX_MODIFIABLE = 0x06
GLOBAL_SP_ECDH_SHARE = 0x07
GLOBAL_SP_DLEQ = 0x08
IN_WITNESS_UTXO = 0x01
IN_SIGHASH_TYPE = 0x03
OUT_SCRIPT = 0x04
OUT_SP_V0_INFO = 0x09


# --- a PSBT as raw maps, to read and tamper with the BIP375 fields -------------------------------------------------


def _compact(data: bytes, i: int) -> tuple[int, int]:
    first = data[i]
    if first < 0xFD:
        return first, i + 1
    width = {0xFD: 2, 0xFE: 4, 0xFF: 8}[first]
    return int.from_bytes(data[i + 1 : i + 1 + width], "little"), i + 1 + width


def _write_compact(n: int) -> bytes:
    if n < 0xFD:
        return bytes([n])
    return b"\xfd" + n.to_bytes(2, "little") if n <= 0xFFFF else b"\xfe" + n.to_bytes(4, "little")


def parse_psbt(data: bytes) -> list[list[tuple[bytes, bytes]]]:
    """The maps (global, inputs, outputs) of a PSBTv2 as lists of (key, value)."""
    assert data[:5] == b"psbt\xff"
    i = 5
    maps = []
    while i < len(data):
        entries = []
        while True:
            n, i = _compact(data, i)
            if n == 0:
                break
            key = data[i : i + n]
            i += n
            n, i = _compact(data, i)
            entries.append((key, data[i : i + n]))
            i += n
        maps.append(entries)
    return maps


def serialize_psbt(maps: list[list[tuple[bytes, bytes]]]) -> bytes:
    out = b"psbt\xff"
    for entries in maps:
        for key, value in entries:
            out += _write_compact(len(key)) + key + _write_compact(len(value)) + value
        out += b"\x00"
    return out


def entry(entries, key_type: int):
    return next((value for key, value in entries if key[0] == key_type), None)


def replace(entries, key_type: int, value: bytes):
    out = [(k, v) for k, v in entries if k[0] != key_type]
    return out + [(bytes([key_type]) + next((k[1:] for k, _ in entries if k[0] == key_type), b""), value)]


def bbqr_decode(texts: list[str]) -> bytes:
    parts = sorted(texts, key=lambda t: int(t[6:8], 36))
    body = "".join(t[8:] for t in parts)
    return zlib.decompress(base64.b32decode(body + "=" * (-len(body) % 8)), -10)


# --- secp256k1 points as Python integers: secp256k1_spec (SEC 1), and BIP340's lift_x ---------------------------------


def lift_x(x: int, odd: bool = False):
    y = pow((x * x * x + 7) % FIELD, (FIELD + 1) // 4, FIELD)
    assert y * y % FIELD == (x * x * x + 7) % FIELD, "not a point on the curve"
    return (x, y if (y & 1) == odd else FIELD - y)


def scalar(data: bytes) -> int:
    value = int.from_bytes(data, "big")
    assert 0 < value < ORDER, "a hash outside the group order (BIP352 says fail)"
    return value


# --- the recipient: BIP352 written from the specification ----------------------------------------------------------


class Recipient:
    def __init__(self):
        self.b_scan = int.from_bytes(os.urandom(32), "big") % ORDER
        self.b_spend = int.from_bytes(os.urandom(32), "big") % ORDER
        self.B_scan = point_mul(self.b_scan, G)
        self.B_spend = point_mul(self.b_spend, G)

    @property
    def address(self) -> str:
        payload = compress(self.B_scan) + compress(self.B_spend)
        data = [0] + bech32.convertbits(list(payload), 8, 5)
        return bech32.bech32_encode(bech32.Encoding.BECH32M, "sprt", data)

    def scan(self, node, txid: str) -> list[tuple[int, int]]:
        """(output index, sats) of every output of `txid` that pays this recipient (BIP352 "Scanning")."""
        tx = node.cli("getrawtransaction", txid, 1)
        keys, outpoints = [], []
        for vin in tx["vin"]:
            outpoints.append(bytes.fromhex(vin["txid"])[::-1] + vin["vout"].to_bytes(4, "little"))
            prev = node.cli("getrawtransaction", vin["txid"], 1)["vout"][vin["vout"]]["scriptPubKey"]["hex"]
            spk = bytes.fromhex(prev)
            witness = [bytes.fromhex(w) for w in vin.get("txinwitness", [])]
            if len(spk) == 22 and spk[:2] == b"\x00\x14" and witness and len(witness[-1]) == 33:  # P2WPKH
                keys.append(decompress(witness[-1]))
            elif len(spk) == 34 and spk[:2] == b"\x51\x20":  # P2TR key path: the even-y point of the x-only key
                keys.append(lift_x(int.from_bytes(spk[2:], "big")))
        assert keys, "no input BIP352 counts"
        a_sum = None
        for k in keys:
            a_sum = point_add(a_sum, k)
        input_hash = scalar(tagged("BIP0352/Inputs", min(outpoints) + compress(a_sum)))
        shared = point_mul(input_hash * self.b_scan % ORDER, a_sum)
        taproot = {
            bytes.fromhex(o["scriptPubKey"]["hex"])[2:]: (o["n"], round(float(o["value"]) * 100_000_000))
            for o in tx["vout"]
            if o["scriptPubKey"]["hex"].startswith("5120")
        }
        found, k = [], 0
        while True:
            t_k = scalar(tagged("BIP0352/SharedSecret", compress(shared) + k.to_bytes(4, "big")))
            x_only = point_add(self.B_spend, point_mul(t_k, G))[0].to_bytes(32, "big")
            if x_only not in taproot:
                return found
            found.append(taproot[x_only])
            k += 1


# --- the round trip and the attacks ---------------------------------------------------------------------------------


def setup(run, home, bin_dir, node, tmp_path: Path, kind: str):
    work = tmp_path / "qr"
    work.mkdir()
    vault = Vault(bin_dir, home.env, home.root, "solo")
    vault.run("export", "--script", kind, "--format", "ur", "--qr", str(work / "export.png"), check=True)
    watcher = Watcher(run, node)
    watcher("import", work / "export.png", "--name", "solo", "--network", "regtest")
    watcher("node", "set", node_url(node, "electrum"))
    fund_from_receive_qrs(watcher, node, work, AMOUNTS)
    return work, vault, watcher


@pytest.mark.parametrize("kind", ["wpkh", "tr"])
def test_silent_payment_round_trip_and_attacks(run, home, bin_dir, regtest_node, tmp_path, kind):
    """P2WPKH coins (the signer's BIP32 keys) and taproot key-path coins (its tweaked keys, negated for odd y)."""
    node = regtest_node
    work, vault, watcher = setup(run, home, bin_dir, node, tmp_path, kind)
    bob = Recipient()
    assert bob.address.startswith("sprt1q")

    # The dry run says plainly that the signer computes the silent payment's script (docs/watcher.md).
    plan = watcher.json("send", "--to", bob.address, "--amount", f"{SEND}sat", "--fee-rate", "2", "--dry-run")
    [planned] = [o for o in plan["outputs"] if "silent_payment" in o]
    assert planned == {
        "script": None,
        "value": SEND,
        "change": False,
        "silent_payment": bob.address,
        "script_computed_by": "signer",
    }, planned
    assert all(isinstance(o["script"], str) for o in plan["outputs"] if o is not planned)
    sent = watcher.json(
        "send", "--to", bob.address, "--amount", f"{SEND}sat", "--fee-rate", "2", "--qr", work / "psbt.png"
    )
    assert any(o["address"] == f"{bob.address} (silent payment)" for o in sent["outputs"]), sent["outputs"]
    unsigned_pngs = frames(work, "psbt")
    unsigned = bbqr_decode(read_qr_pngs(unsigned_pngs))
    maps = parse_psbt(unsigned)
    n_in = entry(maps[0], 0x04)[0]
    outputs = maps[1 + n_in :]
    sp = [i for i, o in enumerate(outputs) if entry(o, OUT_SP_V0_INFO) is not None]
    assert len(sp) == 1 and entry(outputs[sp[0]], OUT_SCRIPT) is None, "the watcher must leave the script to the signer"
    assert entry(outputs[sp[0]], OUT_SP_V0_INFO) == compress(bob.B_scan) + compress(bob.B_spend)

    # Attack: the coordinator fills in a script of its own (and clears the modifiable flags): refused, exit 4.
    forged = [list(m) for m in maps]
    thief = b"\x51\x20" + point_mul(int.from_bytes(os.urandom(32), "big") % ORDER, G)[0].to_bytes(32, "big")
    forged[1 + n_in + sp[0]] = replace(outputs[sp[0]], OUT_SCRIPT, thief)
    forged[0] = replace(forged[0], GLOBAL_TX_MODIFIABLE, b"\x00")
    (tmp_path / "forged.psbt").write_bytes(serialize_psbt(forged))
    proc = vault.sign(tmp_path / "forged.psbt", args=("--json",), check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"is not the silent payment the shares give" in proc.stderr

    # Attack: a segwit v2 input (its witness UTXO says so): refused, exit 4.
    v2 = [list(m) for m in maps]
    utxo = entry(v2[1], IN_WITNESS_UTXO)
    v2[1] = replace(v2[1], IN_WITNESS_UTXO, utxo[:8] + b"\x22\x52\x20" + os.urandom(32))
    (tmp_path / "v2.psbt").write_bytes(serialize_psbt(v2))
    proc = vault.sign(tmp_path / "v2.psbt", args=("--json",), check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"segwit version 2" in proc.stdout + proc.stderr

    # Attack: SIGHASH_NONE asked for on an input: refused, exit 4.
    none = [list(m) for m in maps]
    none[1] = replace(none[1], IN_SIGHASH_TYPE, (2).to_bytes(4, "little"))
    (tmp_path / "none.psbt").write_bytes(serialize_psbt(none))
    proc = vault.sign(tmp_path / "none.psbt", args=("--json",), check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"SIGHASH_ALL" in proc.stdout + proc.stderr

    # Control: the watcher's own frames are signed; the review names the silent payment.
    signing = vault.sign(*unsigned_pngs, args=("--qr", str(tmp_path / "signed.png"), "--json"))
    verdict = json.loads(signing.stdout)
    assert verdict["verdict"] == "signed", verdict
    assert f"to {bob.address} (silent payment), output {sp[0]}".encode() in signing.stderr
    signed_pngs = frames(tmp_path, "signed")
    signed = bbqr_decode(read_qr_pngs(signed_pngs))
    signed_maps = parse_psbt(signed)
    assert entry(signed_maps[0], GLOBAL_SP_ECDH_SHARE) is not None and entry(signed_maps[0], GLOBAL_SP_DLEQ) is not None

    # Attack: the share's DLEQ proof altered on the way back: the watcher refuses to broadcast, exit 4.
    bad = [list(m) for m in signed_maps]
    proof = bytearray(entry(bad[0], GLOBAL_SP_DLEQ))
    proof[40] ^= 1
    bad[0] = replace(bad[0], GLOBAL_SP_DLEQ, bytes(proof))
    (tmp_path / "bad-proof.psbt").write_bytes(serialize_psbt(bad))
    proc = watcher("broadcast", tmp_path / "bad-proof.psbt", check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"does not prove its key" in proc.stderr

    # Attack: the computed script swapped after signing: refused before broadcasting, exit 4.
    swapped = [list(m) for m in signed_maps]
    swapped[1 + n_in + sp[0]] = replace(swapped[1 + n_in + sp[0]], OUT_SCRIPT, thief)
    (tmp_path / "swapped.psbt").write_bytes(serialize_psbt(swapped))
    proc = watcher("broadcast", tmp_path / "swapped.psbt", check=False)
    assert proc.returncode == 4, proc.stderr

    # Control: the signed frames broadcast; the node mines; the recipient finds the payment with its keys.
    txid = watcher("broadcast", *signed_pngs).stdout.decode().strip()
    assert txid in node.cli("getrawmempool")
    node.mine(1)
    assert bob.scan(node, txid) == [(sp[0], SEND)]
    # And someone else's keys find nothing in it.
    assert Recipient().scan(node, txid) == []


# --- several signers (BIP375's hand-off): two vaults, each holding one input ---------------------------------------


class OneWallet(Watcher):
    """The watcher's commands for one of its wallets (`--wallet NAME`)."""

    def __init__(self, run, node, name: str):
        super().__init__(run, node)
        self.name = name

    def __call__(self, *args, check: bool = True, input=None):
        return super().__call__(*args, "--wallet", self.name, check=check, input=input)


OUT_AMOUNT = 0x03
GLOBAL_INPUT_COUNT = 0x04
IN_SP_ECDH_SHARE = 0x1D
IN_SP_DLEQ = 0x1E
IN_PARTIAL_SIG = 0x02


def merged_two_wallet_psbt(alice_psbt: bytes, bob_psbt: bytes, extra_fee: int) -> bytes:
    """A coordinator's merge: Alice's PSBT (paying the silent-payment address, her change) with Bob's coin as a
    second input (its whole input map from the watcher's PSBT of Bob's wallet); Alice's change takes Bob's coin less
    `extra_fee` for the added input."""
    a, b = parse_psbt(alice_psbt), parse_psbt(bob_psbt)
    n_a, n_b = entry(a[0], GLOBAL_INPUT_COUNT)[0], entry(b[0], GLOBAL_INPUT_COUNT)[0]
    bob_input = b[1]
    bob_value = int.from_bytes(entry(bob_input, IN_WITNESS_UTXO)[:8], "little")
    outputs = a[1 + n_a :]
    [change] = [i for i, o in enumerate(outputs) if entry(o, OUT_SP_V0_INFO) is None]
    old = int.from_bytes(entry(outputs[change], OUT_AMOUNT), "little")
    outputs[change] = replace(outputs[change], OUT_AMOUNT, (old + bob_value - extra_fee).to_bytes(8, "little"))
    assert n_b >= 1
    merged = [replace(a[0], GLOBAL_INPUT_COUNT, bytes([n_a + 1]))] + a[1 : 1 + n_a] + [bob_input] + outputs
    return serialize_psbt(merged)


def foreign_second_input(psbt: bytes, value: int = 100_000) -> bytes:
    """The watcher's silent-payment PSBT (as written: base64 or binary) with a second input of a key held by no vault
    here (a P2WPKH coin of a random key, its derivation under fingerprint 00000000), its value added to the first
    output that is not the silent payment: a vault then holds one input of two."""
    data = psbt if psbt.startswith(b"psbt\xff") else base64.b64decode(psbt)
    key = compress(point_mul(int.from_bytes(os.urandom(32), "big") % ORDER, G))
    spk = b"\x00\x14" + hashlib.new("ripemd160", hashlib.sha256(key).digest()).digest()
    utxo = value.to_bytes(8, "little") + bytes([len(spk)]) + spk
    other = [
        (bytes([0x0E]), os.urandom(32)),  # PSBT_IN_PREVIOUS_TXID
        (bytes([0x0F]), (0).to_bytes(4, "little")),  # PSBT_IN_OUTPUT_INDEX
        (bytes([0x10]), (0xFFFFFFFD).to_bytes(4, "little")),  # PSBT_IN_SEQUENCE
        (bytes([IN_WITNESS_UTXO]), utxo),
        (bytes([0x06]) + key, bytes(4) + (0x80000054).to_bytes(4, "little")),  # PSBT_IN_BIP32_DERIVATION
    ]
    other_psbt = serialize_psbt([[(bytes([GLOBAL_INPUT_COUNT]), b"\x01")], other])
    return merged_two_wallet_psbt(data, other_psbt, extra_fee=300)


def test_silent_payment_two_signers(run, home, bin_dir, regtest_node, tmp_path):
    """Two vaults (different seeds), one input each, one silent payment: the first adds its ECDH share and signs
    nothing (exit 0, verdict shares_added), the second verifies it, adds its own, computes the script and signs (read
    from QR PNGs), the first signs on a second pass; the watcher checks every share and script, broadcasts, and the
    recipient finds the payment. Attacks beside: a bad proof from the first signer, a share moved to an input whose
    key it is not, a script that does not match the shares given to the watcher."""
    node = regtest_node
    work = tmp_path / "qr"
    work.mkdir()
    watcher = Watcher(run, node)
    vaults, wallets = {}, {}
    for name in ("alice", "bob"):
        vault = Vault(bin_dir, home.env, home.root, name)
        vault.run("export", "--script", "wpkh", "--format", "ur", "--qr", str(work / f"{name}.png"), check=True)
        watcher("import", work / f"{name}.png", "--name", name, "--network", "regtest")
        vaults[name], wallets[name] = vault, OneWallet(run, node, name)
    watcher("node", "set", node_url(node, "electrum"))
    for name, amount in (("alice", 300_000), ("bob", 200_000)):
        wallet = wallets[name]
        address = wallet.json("receive", "--new")["address"]
        node.send_to(address, amount)
    node.mine(1)
    for wallet in wallets.values():
        wallet("sync")
    carol = Recipient()
    wallets["alice"].json(
        "send", "--to", carol.address, "--amount", "250000sat", "--fee-rate", "2", "--out", tmp_path / "a.psbt"
    )
    wallets["bob"].json(
        "send", "--to", carol.address, "--amount", "10000sat", "--fee-rate", "2", "--out", tmp_path / "b.psbt"
    )
    unsigned = merged_two_wallet_psbt(_psbt_bytes(tmp_path / "a.psbt"), _psbt_bytes(tmp_path / "b.psbt"), extra_fee=300)
    (tmp_path / "two.psbt").write_bytes(unsigned)
    scan = compress(carol.B_scan)

    # Alice holds input 0 only: her share is added with its proof, nothing is signed, exit 0.
    first = vaults["alice"].sign(tmp_path / "two.psbt", args=("--json", "--out", str(tmp_path / "alice-1.psbt")))
    verdict = json.loads(first.stdout)
    assert verdict["verdict"] == "shares_added", verdict
    assert verdict["pending_share_inputs"] == [1] and verdict["signed_inputs"] == [], verdict
    assert b"1 input(s) still need another signer's share" in first.stderr
    shared = parse_psbt(_psbt_bytes(tmp_path / "alice-1.psbt"))
    assert entry(shared[1], IN_SP_ECDH_SHARE) is not None and entry(shared[1], IN_SP_DLEQ) is not None
    assert entry(shared[2], IN_SP_ECDH_SHARE) is None
    assert all(entry(m, IN_PARTIAL_SIG) is None for m in shared[1:3]), "nothing may be signed yet"
    assert next(k for k, _ in shared[1] if k[0] == IN_SP_ECDH_SHARE)[1:] == scan

    # Attack: Alice's proof altered on the way to Bob: refused, exit 4 (control: the untouched file, below).
    bad = [list(m) for m in shared]
    proof = bytearray(entry(bad[1], IN_SP_DLEQ))
    proof[5] ^= 1
    bad[1] = replace(bad[1], IN_SP_DLEQ, bytes(proof))
    (tmp_path / "bad.psbt").write_bytes(serialize_psbt(bad))
    proc = vaults["bob"].sign(tmp_path / "bad.psbt", args=("--json",), check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"does not prove its key" in proc.stderr

    # Attack: Alice's share and proof moved to Bob's input (a share that is not that input's key): refused, exit 4.
    moved = [list(m) for m in shared]
    share_entries = [(k, v) for k, v in moved[1] if k[0] in (IN_SP_ECDH_SHARE, IN_SP_DLEQ)]
    moved[1] = [(k, v) for k, v in moved[1] if k[0] not in (IN_SP_ECDH_SHARE, IN_SP_DLEQ)]
    moved[2] = moved[2] + share_entries
    (tmp_path / "moved.psbt").write_bytes(serialize_psbt(moved))
    proc = vaults["bob"].sign(tmp_path / "moved.psbt", args=("--json",), check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"does not prove its key" in proc.stderr

    # Control: Bob reads Alice's answer, completes the shares, computes the script and signs input 1 (QR PNGs out).
    (tmp_path / "bob-qr").mkdir()
    second = vaults["bob"].sign(
        tmp_path / "alice-1.psbt", args=("--json", "--qr", str(tmp_path / "bob-qr" / "bob.png"))
    )
    verdict = json.loads(second.stdout)
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == [1], verdict
    assert f"to {carol.address} (silent payment), output".encode() in second.stderr

    # Alice's second pass, from Bob's QR frames: the outputs now fixed and checked against the shares; she signs.
    bob_pngs = frames(tmp_path / "bob-qr", "bob")
    third = vaults["alice"].sign(*bob_pngs, args=("--json", "--out", str(tmp_path / "alice-2.psbt")))
    verdict = json.loads(third.stdout)
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == [0], verdict
    assert verdict["complete"] is True, verdict
    final = parse_psbt(_psbt_bytes(tmp_path / "alice-2.psbt"))
    n_out_start = 1 + 2
    [sp] = [i for i, o in enumerate(final[n_out_start:]) if entry(o, OUT_SP_V0_INFO) is not None]

    # Attack: the watcher given a script that does not match the shares: finalize and broadcast refuse, exit 4.
    thief = b"\x51\x20" + point_mul(int.from_bytes(os.urandom(32), "big") % ORDER, G)[0].to_bytes(32, "big")
    swapped = [list(m) for m in final]
    swapped[n_out_start + sp] = replace(swapped[n_out_start + sp], OUT_SCRIPT, thief)
    (tmp_path / "swapped.psbt").write_bytes(serialize_psbt(swapped))
    for command in ("finalize", "broadcast"):
        proc = wallets["alice"](command, tmp_path / "swapped.psbt", check=False)
        assert proc.returncode == 4, (command, proc.stderr)
        assert b"is not the silent payment the shares give" in proc.stderr
    proc = wallets["alice"]("combine", tmp_path / "swapped.psbt", "--out", tmp_path / "no.psbt", check=False)
    assert proc.returncode == 4, proc.stderr
    assert b"is not the silent payment the shares give" in proc.stderr
    assert not (tmp_path / "no.psbt").exists()

    # Control: the watcher combines the two signers' answers (every share and script checked), broadcasts; mined;
    # the recipient finds the payment with its keys.
    wallets["alice"]("combine", tmp_path / "alice-2.psbt", tmp_path / "bob-qr", "--out", tmp_path / "combined.psbt")
    txid = wallets["alice"]("broadcast", tmp_path / "combined.psbt").stdout.decode().strip()
    assert txid in node.cli("getrawmempool")
    node.mine(1)
    assert carol.scan(node, txid) == [(sp, 250_000)]
    tx = node.cli("getrawtransaction", txid, 1)
    assert len(tx["vin"]) == 2


def _psbt_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return data if data.startswith(b"psbt\xff") else base64.b64decode(data)
