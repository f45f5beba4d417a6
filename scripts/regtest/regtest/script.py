"""Script helpers: pushes, script numbers, asm, output types, addresses and descriptors (the last two via embit)."""

from __future__ import annotations

from embit import script as escript
from embit.descriptor import Descriptor
from embit.descriptor.checksum import add_checksum
from embit.networks import NETWORKS

NET = NETWORKS["regtest"]

OP_0, OP_PUSHDATA1, OP_PUSHDATA2, OP_PUSHDATA4, OP_1NEGATE, OP_1, OP_16, OP_RETURN = 0, 76, 77, 78, 79, 81, 96, 106

_OPNAMES = {
    0: "0",
    79: "-1",
    97: "OP_NOP",
    99: "OP_IF",
    100: "OP_NOTIF",
    103: "OP_ELSE",
    104: "OP_ENDIF",
    105: "OP_VERIFY",
    106: "OP_RETURN",
    107: "OP_TOALTSTACK",
    108: "OP_FROMALTSTACK",
    115: "OP_IFDUP",
    116: "OP_DEPTH",
    117: "OP_DROP",
    118: "OP_DUP",
    119: "OP_NIP",
    120: "OP_OVER",
    124: "OP_SWAP",
    130: "OP_SIZE",
    135: "OP_EQUAL",
    136: "OP_EQUALVERIFY",
    139: "OP_1ADD",
    140: "OP_1SUB",
    143: "OP_NEGATE",
    144: "OP_ABS",
    145: "OP_NOT",
    147: "OP_ADD",
    148: "OP_SUB",
    154: "OP_BOOLAND",
    155: "OP_BOOLOR",
    156: "OP_NUMEQUAL",
    157: "OP_NUMEQUALVERIFY",
    159: "OP_LESSTHAN",
    160: "OP_GREATERTHAN",
    163: "OP_MIN",
    164: "OP_MAX",
    165: "OP_WITHIN",
    166: "OP_RIPEMD160",
    167: "OP_SHA1",
    168: "OP_SHA256",
    169: "OP_HASH160",
    170: "OP_HASH256",
    171: "OP_CODESEPARATOR",
    172: "OP_CHECKSIG",
    173: "OP_CHECKSIGVERIFY",
    174: "OP_CHECKMULTISIG",
    175: "OP_CHECKMULTISIGVERIFY",
    177: "OP_CHECKLOCKTIMEVERIFY",
    178: "OP_CHECKSEQUENCEVERIFY",
    186: "OP_CHECKSIGADD",
}


def push_data(data: bytes) -> bytes:
    """The minimal push of `data`."""
    n = len(data)
    if n < OP_PUSHDATA1:
        return bytes([n]) + data
    if n <= 0xFF:
        return bytes([OP_PUSHDATA1, n]) + data
    if n <= 0xFFFF:
        return bytes([OP_PUSHDATA2]) + n.to_bytes(2, "little") + data
    return bytes([OP_PUSHDATA4]) + n.to_bytes(4, "little") + data


def script_num(n: int) -> bytes:
    """CScriptNum serialization (little-endian, sign bit in the last byte)."""
    if n == 0:
        return b""
    neg, a = n < 0, abs(n)
    out = bytearray()
    while a:
        out.append(a & 0xFF)
        a >>= 8
    if out[-1] & 0x80:
        out.append(0x80 if neg else 0)
    elif neg:
        out[-1] |= 0x80
    return bytes(out)


def push_int(n: int) -> bytes:
    """What `CScript() << n` emits: OP_0, OP_1NEGATE, OP_1..OP_16, else a push of the script number."""
    if n == 0:
        return bytes([OP_0])
    if n == -1 or 1 <= n <= 16:
        return bytes([n + (OP_1 - 1)])
    return push_data(script_num(n))


def iter_ops(script: bytes):
    """Yields (opcode, data or None); raises ValueError on a truncated push."""
    i = 0
    while i < len(script):
        op = script[i]
        i += 1
        if op <= OP_PUSHDATA4:
            if op < OP_PUSHDATA1:
                n = op
            else:
                width = {OP_PUSHDATA1: 1, OP_PUSHDATA2: 2, OP_PUSHDATA4: 4}[op]
                if i + width > len(script):
                    raise ValueError("truncated push")
                n = int.from_bytes(script[i : i + width], "little")
                i += width
            if i + n > len(script):
                raise ValueError("truncated push")
            yield op, script[i : i + n]
            i += n
        else:
            yield op, None


def to_asm(script: bytes) -> str:
    """A readable disassembly in the spirit of Core's ScriptToAsmStr (small pushes shown as numbers)."""
    parts = []
    try:
        for op, data in iter_ops(script):
            if data is not None:
                if 0 < len(data) <= 4:
                    parts.append(str(_decode_num(data)))
                elif op == OP_0:
                    parts.append("0")
                else:
                    parts.append(data.hex())
            elif OP_1 <= op <= OP_16:
                parts.append(str(op - OP_1 + 1))
            else:
                parts.append(_OPNAMES.get(op, f"OP_UNKNOWN{op}" if op > 186 else f"OP_{op}"))
    except ValueError:
        parts.append("[error]")
    return " ".join(parts)


def _decode_num(data: bytes) -> int:
    n = int.from_bytes(data, "little")
    if data[-1] & 0x80:
        return -(n & ~(0x80 << (8 * (len(data) - 1))))
    return n


def script_type(spk: bytes) -> str:
    """Core's output type names."""
    n = len(spk)
    if n == 25 and spk[:3] == b"\x76\xa9\x14" and spk[23:] == b"\x88\xac":
        return "pubkeyhash"
    if n == 23 and spk[:2] == b"\xa9\x14" and spk[22] == 0x87:
        return "scripthash"
    if n == 22 and spk[:2] == b"\x00\x14":
        return "witness_v0_keyhash"
    if n == 34 and spk[:2] == b"\x00\x20":
        return "witness_v0_scripthash"
    if n == 34 and spk[:2] == b"\x51\x20":
        return "witness_v1_taproot"
    if n == 4 and spk == b"\x51\x02\x4e\x73":
        return "anchor"
    if n >= 1 and spk[0] == OP_RETURN:
        return "nulldata"
    if n in (35, 67) and spk[-1] == 0xAC and spk[0] == n - 2:
        return "pubkey"
    if 4 <= n <= 42 and (spk[0] == 0 or OP_1 <= spk[0] <= OP_16) and spk[1] + 2 == n and 2 <= spk[1] <= 40:
        return "witness_unknown"
    return "nonstandard"


def address_of(spk: bytes) -> str | None:
    if script_type(spk) in ("nulldata", "pubkey", "nonstandard"):
        return None
    try:
        return escript.Script(spk).address(NET)
    except Exception:
        return None


def is_unspendable(spk: bytes) -> bool:
    """Core's CScript::IsUnspendable: OP_RETURN first or larger than MAX_SCRIPT_SIZE."""
    return (len(spk) > 0 and spk[0] == OP_RETURN) or len(spk) > 10_000


class AddressError(ValueError):
    pass


def address_to_script(address: str) -> bytes:
    """A regtest address (bcrt1…, m/n/2…) -> its scriptPubKey; AddressError when it is not one."""
    if not isinstance(address, str) or not address:
        raise AddressError("empty address")
    try:
        spk = escript.address_to_scriptpubkey(address).data
    except Exception as e:
        raise AddressError(str(e)) from e
    # embit accepts every network's prefixes; keep only regtest/test ones.
    if address_of(spk) != address and address_of(spk) != address.lower():
        raise AddressError("not a regtest address")
    return spk


def describe_output(spk: bytes) -> dict:
    """The `scriptPubKey` object of Core's decoded transactions."""
    out = {"asm": to_asm(spk), "desc": infer_desc(spk), "hex": spk.hex()}
    addr = address_of(spk)
    if addr:
        out["address"] = addr
    out["type"] = script_type(spk)
    return out


def infer_desc(spk: bytes) -> str:
    addr = address_of(spk)
    return add_checksum(f"addr({addr})" if addr else f"raw({spk.hex()})")


class DescriptorError(ValueError):
    pass


class ParsedDescriptor:
    """One output descriptor: `addr(…)`, `raw(…)`, or anything embit parses (pkh, wpkh, sh, wsh, tr, multi…)."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise DescriptorError("descriptor must be a string")
        body = text.split("#", 1)[0].strip()
        if "#" in text and add_checksum(body) != text.strip():
            raise DescriptorError(
                f"Provided checksum '{text.split('#', 1)[1]}' does not match computed checksum "
                f"'{add_checksum(body).split('#', 1)[1]}'"
            )
        self.text = body
        self._fixed: bytes | None = None
        self._desc = None
        if body.startswith("addr(") and body.endswith(")"):
            try:
                self._fixed = address_to_script(body[5:-1])
            except AddressError as e:
                raise DescriptorError(f"Address {body[5:-1]} is not valid") from e
        elif body.startswith("raw(") and body.endswith(")"):
            try:
                self._fixed = bytes.fromhex(body[4:-1])
            except ValueError as e:
                raise DescriptorError("Raw script is not hex") from e
        else:
            try:
                self._desc = Descriptor.from_string(body)
            except Exception as e:
                raise DescriptorError(f"'{body}' is not a valid descriptor function: {e}") from e

    @property
    def is_range(self) -> bool:
        return self._desc is not None and self._desc.is_wildcard

    def scripts(self, start: int = 0, end: int = 0) -> list[tuple[bytes, str]]:
        """(scriptPubKey, descriptor of that one script) for each index in [start, end] (one if not ranged)."""
        if self._fixed is not None:
            return [(self._fixed, add_checksum(self.text))]
        assert self._desc is not None
        if not self._desc.is_wildcard:
            return [(self._desc.script_pubkey().data, add_checksum(self.text))]
        out = []
        for i in range(start, end + 1):
            d = self._desc.derive(i)
            out.append((d.script_pubkey().data, add_checksum(str(d))))
        return out
