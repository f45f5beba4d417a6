"""Bitcoin serialization: transactions, blocks, hashes, merkle trees. Written here, checked by the kernel."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field

COIN = 100_000_000
MAX_MONEY = 21_000_000 * COIN
WITNESS_SCALE_FACTOR = 4


class DecodeError(ValueError):
    """Bytes that are not a well-formed transaction or block."""


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def dsha256(data: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def hash_to_hex(h: bytes) -> str:
    """Internal byte order -> the reversed hex that users and RPCs show."""
    return h[::-1].hex()


def hex_to_hash(s: str) -> bytes:
    """Displayed hex -> internal byte order. Raises ValueError unless `s` is 64 hex digits."""
    if not isinstance(s, str) or len(s) != 64:
        raise ValueError("hash must be 64 hex characters")
    return bytes.fromhex(s)[::-1]


def scripthash(script_pubkey: bytes) -> str:
    """The Electrum protocol's script hash: sha256 of the scriptPubKey, reversed, hex."""
    return sha256(script_pubkey)[::-1].hex()


def ser_varint(n: int) -> bytes:
    if n < 0xFD:
        return bytes([n])
    if n <= 0xFFFF:
        return b"\xfd" + struct.pack("<H", n)
    if n <= 0xFFFFFFFF:
        return b"\xfe" + struct.pack("<I", n)
    return b"\xff" + struct.pack("<Q", n)


def ser_bytes(b: bytes) -> bytes:
    return ser_varint(len(b)) + b


class Reader:
    """A cursor over bytes that raises DecodeError instead of reading past the end."""

    MAX_SIZE = 0x02000000  # Core's MAX_SIZE for any length prefix

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def read(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise DecodeError("unexpected end of data")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.read(1)[0]

    def u32(self) -> int:
        return struct.unpack("<I", self.read(4))[0]

    def i32(self) -> int:
        return struct.unpack("<i", self.read(4))[0]

    def i64(self) -> int:
        return struct.unpack("<q", self.read(8))[0]

    def varint(self) -> int:
        first = self.u8()
        if first < 0xFD:
            n = first
        elif first == 0xFD:
            n = struct.unpack("<H", self.read(2))[0]
            if n < 0xFD:
                raise DecodeError("non-canonical compact size")
        elif first == 0xFE:
            n = struct.unpack("<I", self.read(4))[0]
            if n <= 0xFFFF:
                raise DecodeError("non-canonical compact size")
        else:
            n = struct.unpack("<Q", self.read(8))[0]
            if n <= 0xFFFFFFFF:
                raise DecodeError("non-canonical compact size")
        if n > self.MAX_SIZE:
            raise DecodeError("compact size too large")
        return n

    def varbytes(self) -> bytes:
        return self.read(self.varint())

    def at_end(self) -> bool:
        return self.pos == len(self.data)


@dataclass
class TxIn:
    prev_txid: bytes  # internal byte order
    prev_vout: int
    script_sig: bytes = b""
    sequence: int = 0xFFFFFFFF
    witness: list[bytes] = field(default_factory=list)

    @property
    def outpoint(self) -> tuple[bytes, int]:
        return (self.prev_txid, self.prev_vout)

    @property
    def is_null_prevout(self) -> bool:
        return self.prev_txid == bytes(32) and self.prev_vout == 0xFFFFFFFF


@dataclass
class TxOut:
    value: int
    script_pubkey: bytes


@dataclass
class Tx:
    version: int
    vin: list[TxIn]
    vout: list[TxOut]
    locktime: int = 0

    @property
    def has_witness(self) -> bool:
        return any(i.witness for i in self.vin)

    def serialize(self, with_witness: bool = True) -> bytes:
        witness = with_witness and self.has_witness
        out = [struct.pack("<i", self.version)]
        if witness:
            out.append(b"\x00\x01")
        out.append(ser_varint(len(self.vin)))
        for i in self.vin:
            out += [i.prev_txid, struct.pack("<I", i.prev_vout), ser_bytes(i.script_sig), struct.pack("<I", i.sequence)]
        out.append(ser_varint(len(self.vout)))
        for o in self.vout:
            out += [struct.pack("<q", o.value), ser_bytes(o.script_pubkey)]
        if witness:
            for i in self.vin:
                out.append(ser_varint(len(i.witness)))
                out += [ser_bytes(item) for item in i.witness]
        out.append(struct.pack("<I", self.locktime))
        return b"".join(out)

    @property
    def txid_bytes(self) -> bytes:
        return dsha256(self.serialize(with_witness=False))

    @property
    def wtxid_bytes(self) -> bytes:
        return dsha256(self.serialize(with_witness=True))

    @property
    def txid(self) -> str:
        return hash_to_hex(self.txid_bytes)

    @property
    def wtxid(self) -> str:
        return hash_to_hex(self.wtxid_bytes)

    @property
    def is_coinbase(self) -> bool:
        return len(self.vin) == 1 and self.vin[0].is_null_prevout

    @property
    def size(self) -> int:
        return len(self.serialize(True))

    @property
    def stripped_size(self) -> int:
        return len(self.serialize(False))

    @property
    def weight(self) -> int:
        return self.stripped_size * (WITNESS_SCALE_FACTOR - 1) + self.size

    @property
    def vsize(self) -> int:
        return (self.weight + WITNESS_SCALE_FACTOR - 1) // WITNESS_SCALE_FACTOR


def read_tx(r: Reader) -> Tx:
    """Reads one transaction the way Core's UnserializeTransaction does (extended format allowed)."""
    version = r.i32()
    flags = 0
    vin = _read_vin(r)
    if not vin:
        flags = r.u8()
        if flags != 0:
            vin = _read_vin(r)
            vout = _read_vout(r)
        else:
            vout = []
    else:
        vout = _read_vout(r)
    if flags & 1:
        flags ^= 1
        for i in vin:
            n = r.varint()
            i.witness = [r.varbytes() for _ in range(n)]
        if not any(i.witness for i in vin):
            raise DecodeError("Superfluous witness record")
    if flags:
        raise DecodeError("Unknown transaction optional data")
    locktime = r.u32()
    return Tx(version, vin, vout, locktime)


def _read_vin(r: Reader) -> list[TxIn]:
    n = r.varint()
    out = []
    for _ in range(n):
        prev = r.read(32)
        idx = r.u32()
        script = r.varbytes()
        seq = r.u32()
        out.append(TxIn(prev, idx, script, seq))
    return out


def _read_vout(r: Reader) -> list[TxOut]:
    n = r.varint()
    return [TxOut(r.i64(), r.varbytes()) for _ in range(n)]


def parse_tx(data: bytes) -> Tx:
    """Parses a whole transaction; trailing bytes are an error."""
    r = Reader(data)
    tx = read_tx(r)
    if not r.at_end():
        raise DecodeError("trailing bytes after transaction")
    return tx


def parse_tx_hex(s: str) -> Tx:
    if not isinstance(s, str):
        raise DecodeError("not a hex string")
    try:
        data = bytes.fromhex(s)
    except ValueError as e:
        raise DecodeError("not hex") from e
    return parse_tx(data)


@dataclass
class Header:
    version: int
    prev_hash: bytes
    merkle_root: bytes
    time: int
    bits: int
    nonce: int

    def serialize(self) -> bytes:
        return (
            struct.pack("<i", self.version)
            + self.prev_hash
            + self.merkle_root
            + struct.pack("<III", self.time, self.bits, self.nonce)
        )

    @property
    def hash_bytes(self) -> bytes:
        return dsha256(self.serialize())

    @property
    def hash(self) -> str:
        return hash_to_hex(self.hash_bytes)

    @staticmethod
    def parse(data: bytes) -> Header:
        if len(data) != 80:
            raise DecodeError("header must be 80 bytes")
        version = struct.unpack("<i", data[0:4])[0]
        time, bits, nonce = struct.unpack("<III", data[68:80])
        return Header(version, data[4:36], data[36:68], time, bits, nonce)


@dataclass
class Block:
    header: Header
    txs: list[Tx]

    def serialize(self) -> bytes:
        return self.header.serialize() + ser_varint(len(self.txs)) + b"".join(t.serialize() for t in self.txs)


def parse_block(data: bytes) -> Block:
    r = Reader(data)
    header = Header.parse(r.read(80))
    n = r.varint()
    txs = [read_tx(r) for _ in range(n)]
    if not r.at_end():
        raise DecodeError("trailing bytes after block")
    return Block(header, txs)


def bits_to_target(bits: int) -> int:
    exponent = bits >> 24
    mantissa = bits & 0x007FFFFF
    if exponent <= 3:
        return mantissa >> (8 * (3 - exponent))
    return mantissa << (8 * (exponent - 3))


def difficulty(bits: int) -> float:
    """Core's GetDifficulty: the difficulty-1 target over this target, from the compact form."""
    shift = (bits >> 24) & 0xFF
    diff = float(0x0000FFFF) / float(bits & 0x00FFFFFF)
    while shift < 29:
        diff *= 256.0
        shift += 1
    while shift > 29:
        diff /= 256.0
        shift -= 1
    return diff


def block_work(bits: int) -> int:
    target = bits_to_target(bits)
    return (1 << 256) // (target + 1)


def merkle_root(hashes: list[bytes]) -> bytes:
    """Bitcoin's merkle root over internal-order hashes (the last one is paired with itself on odd levels)."""
    if not hashes:
        return bytes(32)
    level = list(hashes)
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [dsha256(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def merkle_branch(hashes: list[bytes], index: int) -> list[bytes]:
    """The sibling hashes from leaf `index` up to (not including) the root."""
    branch = []
    level = list(hashes)
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        branch.append(level[index ^ 1])
        index >>= 1
        level = [dsha256(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return branch


def format_money(sats: int) -> str:
    """Core's FormatMoney: 8 decimals, right-trimmed down to at least 2."""
    sign = "-" if sats < 0 else ""
    q, r = divmod(abs(sats), COIN)
    s = f"{q}.{r:08d}".rstrip("0")
    whole, frac = s.split(".")
    return f"{sign}{whole}.{frac.ljust(2, '0')}"


def btc(sats: int) -> float:
    """Satoshis as the float BTC amount Core prints in JSON (exact to 8 decimals once formatted)."""
    return round(sats / COIN, 8)
