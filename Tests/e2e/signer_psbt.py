"""Helpers for the signer's `sign` tests: vaults driven through the CLI, PSBTs built with embit (and BDK), UR QR frames
made in Python (an encoder written here from BCR-2020-005/012, drawn with segno), and embit/BDK combining.

Nothing here signs: every signature in these tests comes from `airlock-signer sign`.
"""

from __future__ import annotations

import base64
import os
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import segno
from embit import bip32, bip39
from embit.descriptor import Descriptor
from embit.finalizer import finalize_psbt
from embit.networks import NETWORKS
from embit.psbt import PSBT, DerivationPath
from embit.script import Witness
from embit.transaction import Transaction, TransactionInput, TransactionOutput

NET = NETWORKS["regtest"]
KDF = ["--kdf-memory", "64"]


def new_mnemonic() -> str:
    """A fresh random 12-word mnemonic, so tests sharing the session's regtest node never see each other's coins."""
    return bip39.mnemonic_from_bytes(os.urandom(16))


def embit_root(mnemonic: str, version=None) -> bip32.HDKey:
    return bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonic), version=version or NET["xprv"])


@dataclass
class Vault:
    """One signer vault in the test's home (`--vault PATH`), restored from `mnemonic`, driven through the CLI."""

    bin_dir: Path
    env: dict
    root: Path
    name: str
    mnemonic: str = field(default_factory=new_mnemonic)
    network: str = "regtest"

    def __post_init__(self):
        self.path = self.root / f"{self.name}.airlock"
        self.password_file = self.root / f"{self.name}-pw.txt"
        self.password_file.write_text(f"pw-{self.name}\n")
        words = self.root / f"{self.name}-words.txt"
        words.write_text(self.mnemonic + "\n")
        self.run("restore", "--mnemonic-file", str(words), "--network", self.network, *KDF, check=True)
        words.unlink()

    def run(self, *args: str, check: bool = False, input: bytes | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [
                str(self.bin_dir / "airlock-signer"),
                *args,
                "--vault",
                str(self.path),
                "--password-file",
                str(self.password_file),
            ],
            capture_output=True,
            env=self.env,
            cwd=self.root,
            input=input,
            timeout=300,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"airlock-signer {' '.join(args)} exited {proc.returncode}\n"
                f"stdout: {proc.stdout.decode(errors='replace')}\n"
                f"stderr: {proc.stderr.decode(errors='replace')}"
            )
        return proc

    def export(self, script: str) -> str:
        return self.run("export", "--script", script, check=True).stdout.decode().strip()

    @property
    def fingerprint(self) -> bytes:
        return embit_root(self.mnemonic).my_fingerprint

    def sign(self, *inputs: str | Path, args: tuple = (), check: bool = True) -> subprocess.CompletedProcess:
        return self.run("sign", *map(str, inputs), "--yes", *args, check=check)


# --- descriptors --------------------------------------------------------------------------------------------------


def strip_checksum(desc: str) -> str:
    return desc.split("#")[0]


def branch(desc: str, b: int) -> str:
    """The single-path descriptor of branch `b` (0 receive, 1 change) of a `<0;1>/*` descriptor, without checksum."""
    return strip_checksum(desc).replace("<0;1>", str(b))


def multisig_descriptor(cosigner_keys: list[str], threshold: int = 2) -> str:
    """wsh(sortedmulti(M, …)) over the `export --script wsh-multi` keys (`[fp/48h/1h/0h/2h]tpub…`)."""
    return f"wsh(sortedmulti({threshold}," + ",".join(k + "/<0;1>/*" for k in cosigner_keys) + "))"


def address(desc: str, index: int, change: bool = False) -> str:
    return Descriptor.from_string(strip_checksum(desc)).derive(index, branch_index=1 if change else 0).address(NET)


# --- PSBTs with embit ----------------------------------------------------------------------------------------------


def _fill_scope(scope, derived: Descriptor) -> None:
    """Derivations and scripts of one input or output scope, from a derived embit descriptor."""
    if derived.is_taproot:
        key = derived.keys[0]
        pub = key.get_public_key()
        scope.taproot_internal_key = pub
        scope.taproot_bip32_derivations[pub] = ([], DerivationPath(key.origin.fingerprint, key.origin.derivation))
        return
    for key in derived.keys:
        scope.bip32_derivations[key.get_public_key()] = DerivationPath(key.origin.fingerprint, key.origin.derivation)
    if derived.sh:
        scope.redeem_script = derived.redeem_script()
    if derived.wsh:
        scope.witness_script = derived.witness_script()


@dataclass
class Coin:
    """A funding output: its transaction (embit), output index, and the receive index of the descriptor it pays."""

    tx: Transaction
    vout: int
    index: int
    change: bool = False

    @property
    def value(self) -> int:
        return self.tx.vout[self.vout].value


def embit_psbt(
    desc: str,
    coins: list[Coin],
    outputs: list[tuple[str, int]],
    change: tuple[int, int] | None = None,
    non_witness_utxo: bool = True,
    witness_utxo: bool = True,
    sequence: int = 0xFFFFFFFD,
) -> PSBT:
    """A PSBT spending `coins` of `desc` to `outputs` (address, sats), with a change output (index, sats) of `desc`
    carrying its derivation. Each input has its previous transaction and witness UTXO unless told otherwise."""
    d = Descriptor.from_string(strip_checksum(desc))
    vin = [TransactionInput(c.tx.txid(), c.vout, sequence=sequence) for c in coins]
    from embit.script import address_to_scriptpubkey

    vout = [TransactionOutput(v, address_to_scriptpubkey(a)) for a, v in outputs]
    if change:
        vout.append(TransactionOutput(change[1], d.derive(change[0], branch_index=1).script_pubkey()))
    psbt = PSBT(Transaction(version=2, vin=vin, vout=vout, locktime=0))
    for inp, coin in zip(psbt.inputs, coins):
        derived = d.derive(coin.index, branch_index=1 if coin.change else 0)
        assert derived.script_pubkey() == coin.tx.vout[coin.vout].script_pubkey
        segwit = derived.is_segwit or derived.is_taproot
        if non_witness_utxo or not segwit:
            inp.non_witness_utxo = coin.tx
        if witness_utxo and segwit:
            inp.witness_utxo = coin.tx.vout[coin.vout]
        _fill_scope(inp, derived)
    if change:
        _fill_scope(psbt.outputs[-1], d.derive(change[0], branch_index=1))
    return psbt


# --- combining and finalizing -------------------------------------------------------------------------------------

TAP_KEY_SIG = b"\x13"


def embit_combine(unsigned: bytes, *signed: bytes) -> PSBT:
    """Merges the signatures of `signed` PSBTs (trimmed or full) into `unsigned` with embit's objects. embit 0.8 keeps
    a taproot key-path signature (PSBT_IN_TAP_KEY_SIG) as an unknown field; it becomes the one-item final witness."""
    base = PSBT.parse(unsigned)
    for blob in (unsigned, *signed):
        other = PSBT.parse(blob)
        assert other.tx.txid() == base.tx.txid(), "a signed PSBT of another transaction"
        for mine, theirs in zip(base.inputs, other.inputs):
            mine.partial_sigs.update(theirs.partial_sigs)
            if TAP_KEY_SIG in theirs.unknown:
                mine.final_scriptwitness = Witness([theirs.unknown[TAP_KEY_SIG]])
    return base


def embit_finalize(psbt: PSBT) -> bytes:
    tx = finalize_psbt(psbt)
    assert tx is not None, "embit could not finalize the PSBT"
    return tx.serialize()


def bdk_finalize(unsigned: bytes | None, *signed: bytes) -> bytes:
    """BDK (rust-bitcoin's Psbt::combine, then the miniscript finalizer), then the network transaction."""
    import bdkpython as bdk

    psbts = ([unsigned] if unsigned is not None else []) + list(signed)
    merged = bdk.Psbt(base64.b64encode(psbts[0]).decode())
    for blob in psbts[1:]:
        merged = merged.combine(bdk.Psbt(base64.b64encode(blob).decode()))
    result = merged.finalize()
    assert result.could_finalize, f"BDK could not finalize: {result.errors}"
    return bytes(result.psbt.extract_tx().serialize())


# --- UR frames as QR PNGs, made in Python -----------------------------------------------------------------------

BYTEWORDS = (
    "able acid also apex aqua arch atom aunt away axis back bald barn belt beta bias blue body brag brew bulb buzz "
    "calm cash cats chef city claw code cola cook cost crux curl cusp cyan dark data days deli dice diet door down "
    "draw drop drum dull duty each easy echo edge epic even exam exit eyes fact fair fern figs film fish fizz flap "
    "flew flux foxy free frog fuel fund gala game gear gems gift girl glow good gray grim guru gush gyro half hang "
    "hard hawk heat help high hill holy hope horn huts iced idea idle inch inky into iris iron item jade jazz join "
    "jolt jowl judo jugs jump junk jury keep keno kept keys kick kiln king kite kiwi knob lamb lava lazy leaf legs "
    "liar limp lion list logo loud love luau luck lung main many math maze memo menu meow mild mint miss monk nail "
    "navy need news next noon note numb obey oboe omit onyx open oval owls paid part peck play plus poem pool pose "
    "puff puma purr quad quiz race ramp real redo rich road rock roof ruby ruin runs rust safe saga scar sets silk "
    "skew slot soap solo song stub surf swan taco task taxi tent tied time tiny toil tomb toys trip tuna twin ugly "
    "undo unit urge user vast very veto vial vibe view visa void vows wall wand warm wasp wave waxy webs what when "
    "whiz wolf work yank yawn yell yoga yurt zaps zero zest zinc zone zoom"
).split()
assert len(BYTEWORDS) == 256
MINIMAL = {w[0] + w[-1]: i for i, w in enumerate(BYTEWORDS)}


def _cbor_head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | info]) + n.to_bytes(size, "big")
    raise ValueError(n)


def _bytewords_minimal(data: bytes) -> str:
    body = data + zlib.crc32(data).to_bytes(4, "big")
    return "".join(BYTEWORDS[b][0] + BYTEWORDS[b][-1] for b in body)


def _from_bytewords_minimal(text: str) -> bytes:
    text = text.lower()
    raw = bytes(MINIMAL[text[i : i + 2]] for i in range(0, len(text), 2))
    body, crc = raw[:-4], raw[-4:]
    assert zlib.crc32(body).to_bytes(4, "big") == crc, "bytewords checksum"
    return body


def ur_frames(psbt: bytes, max_fragment: int = 150, ur_type: str = "crypto-psbt") -> list[str]:
    """The PSBT as `ur:crypto-psbt` text (BCR-2020-005): one part when small, else the seqLen pure fountain parts
    (`ur:TYPE/SEQ-LEN/…`, CBOR [seq, len, messageLen, crc32, fragment]), upper-case for QR alphanumeric mode."""
    message = _cbor_head(2, len(psbt)) + psbt
    if len(message) <= max_fragment:
        return [f"ur:{ur_type}/{_bytewords_minimal(message)}".upper()]
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


def _cbor_read_head(data: bytes, pos: int) -> tuple[int, int, int]:
    major, info = data[pos] >> 5, data[pos] & 31
    if info < 24:
        return major, info, pos + 1
    size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
    return major, int.from_bytes(data[pos + 1 : pos + 1 + size], "big"), pos + 1 + size


def ur_decode(frames: list[str]) -> bytes:
    """Decodes single-part URs or a complete set of pure parts (what Airlock's encoder writes first) to the PSBT."""
    frames = [f.strip().lower() for f in frames]
    if len(frames) == 1 and frames[0].count("/") == 1:
        message = _from_bytewords_minimal(frames[0].split("/")[1])
    else:
        parts: dict[int, bytes] = {}
        total = length = 0
        for frame in frames:
            body = _from_bytewords_minimal(frame.split("/")[2])
            _, _, pos = _cbor_read_head(body, 0)
            _, seq, pos = _cbor_read_head(body, pos)
            _, total, pos = _cbor_read_head(body, pos)
            _, length, pos = _cbor_read_head(body, pos)
            _, crc, pos = _cbor_read_head(body, pos)
            _, flen, pos = _cbor_read_head(body, pos)
            if seq <= total:
                parts[seq] = body[pos : pos + flen]
        assert sorted(parts) == list(range(1, total + 1)), "missing pure parts"
        message = b"".join(parts[i] for i in range(1, total + 1))[:length]
        assert zlib.crc32(message) == crc
    major, n, pos = _cbor_read_head(message, 0)
    assert major == 2
    return message[pos : pos + n]


def bbqr_decode(texts: list[str]) -> tuple[str, str, bytes]:
    """BBQr parts in any order, repeats allowed (coinkite BBQr.md: `B$`, encoding H/2/Z, file type, total and index in
    base 36; Z is raw deflate, wbits -10, then base32): returns (encoding, file type, bytes)."""
    texts = [t.strip() for t in texts if t.strip()]
    encoding, kind, total = texts[0][2], texts[0][3], int(texts[0][4:6], 36)
    bodies = {}
    for t in texts:
        assert t.startswith("B$") and t[2:6] == texts[0][2:6], "parts of two series"
        bodies[int(t[6:8], 36)] = t[8:]
    assert sorted(bodies) == list(range(total)), f"missing parts of {total}"
    body = "".join(bodies[i] for i in range(total))
    if encoding == "H":
        return encoding, kind, bytes.fromhex(body)
    raw = base64.b32decode(body + "=" * (-len(body) % 8))
    return encoding, kind, zlib.decompress(raw, wbits=-10) if encoding == "Z" else raw


def psbt_from_frames(texts: list[str]) -> bytes:
    """A PSBT from the texts of its QR frames, UR (`ur_decode`) or BBQr (`bbqr_decode`, file type P)."""
    if texts and texts[0].strip().startswith("B$"):
        encoding, kind, data = bbqr_decode(texts)
        assert kind == "P", kind
        return data
    return ur_decode(texts)


def write_qr_pngs(frames: list[str], directory: Path, shuffle_seed: int | None = 7) -> list[Path]:
    """One PNG per frame (segno), named so that the directory order is not the frame order."""
    directory.mkdir(parents=True, exist_ok=True)
    order = list(range(len(frames)))
    if shuffle_seed is not None:
        import random

        random.Random(shuffle_seed).shuffle(order)
    paths = []
    for n, i in enumerate(order):
        path = directory / f"frame-{n:03d}.png"
        segno.make(frames[i], error="l", micro=False).save(str(path), scale=4, border=4)
        paths.append(path)
    return paths


def read_qr_pngs(paths: list[Path]) -> list[str]:
    """QR text of PNGs read by zbar's own command-line reader (zbarimg), not by Airlock; QR only: with every symbology
    on, zbar now and then also "finds" a short linear code inside a dense QR frame."""
    out = subprocess.run(
        ["zbarimg", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in out.stdout.splitlines() if line.strip()]
