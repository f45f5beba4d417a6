"""secp256k1 written from the specifications, for the e2e suite's independent checks (never Airlock's code).

Point arithmetic from SEC1 (affine coordinates, enough for tests), BIP340 tagged hashes, RFC6979 nonces as
libsecp256k1's `nonce_function_rfc6979` feeds them (key ‖ message ‖ 32 bytes of extra data), ECDSA from SEC1
section 4.1, and the ECDSA anti-exfil protocol of secp256k1-zkp's `include/secp256k1_ecdsa_s2c.h`.
"""

from __future__ import annotations

import hashlib
import hmac

FIELD = 2**256 - 2**32 - 977
ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
G = (
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
    0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8,
)


def point_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % FIELD == 0:
        return None
    if a == b:
        slope = 3 * a[0] * a[0] * pow(2 * a[1], -1, FIELD) % FIELD
    else:
        slope = (b[1] - a[1]) * pow(b[0] - a[0], -1, FIELD) % FIELD
    x = (slope * slope - a[0] - b[0]) % FIELD
    return (x, (slope * (a[0] - x) - a[1]) % FIELD)


def point_mul(k: int, point=G):
    result = None
    addend = point
    while k:
        if k & 1:
            result = point_add(result, addend)
        addend = point_add(addend, addend)
        k >>= 1
    return result


def decompress(data: bytes):
    assert len(data) == 33 and data[0] in (2, 3), data.hex()
    x = int.from_bytes(data[1:], "big")
    y = pow((x * x * x + 7) % FIELD, (FIELD + 1) // 4, FIELD)
    assert y * y % FIELD == (x * x * x + 7) % FIELD, "not on the curve"
    if y % 2 != data[0] - 2:
        y = FIELD - y
    return (x, y)


def compress(point) -> bytes:
    return bytes([2 + point[1] % 2]) + point[0].to_bytes(32, "big")


def tagged(tag: str, msg: bytes) -> bytes:
    tag_hash = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(tag_hash + tag_hash + msg).digest()


def rfc6979(secret: int, msg32: bytes, extra32: bytes | None = None) -> int:
    """The first valid nonce of RFC6979 section 3.2 with HMAC-SHA256, seeded as libsecp256k1 seeds it."""
    seed = secret.to_bytes(32, "big") + (int.from_bytes(msg32, "big") % ORDER).to_bytes(32, "big")
    seed += extra32 or b""
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + seed, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + seed, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(k, v, hashlib.sha256).digest()
        candidate = int.from_bytes(v, "big")
        if 0 < candidate < ORDER:
            return candidate
        k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()


def ecdsa_sign(secret: int, msg32: bytes, nonce: int) -> tuple[int, int]:
    """SEC1 4.1.3 with a given nonce, low-S."""
    r = point_mul(nonce)[0] % ORDER
    s = pow(nonce, -1, ORDER) * (int.from_bytes(msg32, "big") + r * secret) % ORDER
    return r, min(s, ORDER - s)


def ecdsa_verify(point, msg32: bytes, r: int, s: int) -> bool:
    """SEC1 4.1.4."""
    if not (0 < r < ORDER and 0 < s < ORDER):
        return False
    w = pow(s, -1, ORDER)
    total = point_add(point_mul(int.from_bytes(msg32, "big") * w % ORDER), point_mul(r * w % ORDER, point))
    return total is not None and total[0] % ORDER == r


def der_decode(sig: bytes) -> tuple[int, int]:
    """(r, s) of a strict DER signature (no sighash byte)."""
    assert sig[0] == 0x30 and sig[1] == len(sig) - 2, sig.hex()
    assert sig[2] == 0x02
    r_len = sig[3]
    r = int.from_bytes(sig[4 : 4 + r_len], "big")
    assert sig[4 + r_len] == 0x02
    s_len = sig[5 + r_len]
    s = int.from_bytes(sig[6 + r_len : 6 + r_len + s_len], "big")
    return r, s


def der_encode(r: int, s: int) -> bytes:
    def integer(n: int) -> bytes:
        b = n.to_bytes(32, "big").lstrip(b"\x00")
        if b[0] & 0x80:
            b = b"\x00" + b
        return b"\x02" + bytes([len(b)]) + b

    body = integer(r) + integer(s)
    return b"\x30" + bytes([len(body)]) + body


# --- the ECDSA anti-exfil protocol (secp256k1-zkp include/secp256k1_ecdsa_s2c.h) -------------------------------------


def host_commitment(entropy: bytes) -> bytes:
    """Step 1: TaggedSHA256("s2c/ecdsa/data", entropy)."""
    assert len(entropy) == 32
    return tagged("s2c/ecdsa/data", entropy)


def signer_commitment(secret: int, msg32: bytes, commitment: bytes) -> bytes:
    """Step 2: R1 = k0·G, k0 the RFC6979 nonce with the host commitment as extra data (compressed)."""
    return compress(point_mul(rfc6979(secret, msg32, commitment)))


def nonce_tweak(r1: bytes, entropy: bytes) -> int:
    return int.from_bytes(tagged("s2c/ecdsa/point", r1 + entropy), "big")


def anti_exfil_sign(secret: int, msg32: bytes, entropy: bytes) -> tuple[int, int]:
    """Step 4: k = k0 + TaggedSHA256("s2c/ecdsa/point", R1 ‖ entropy)."""
    k0 = rfc6979(secret, msg32, host_commitment(entropy))
    return ecdsa_sign(secret, msg32, (k0 + nonce_tweak(compress(point_mul(k0)), entropy)) % ORDER)


def host_verify(r: int, s: int, msg32: bytes, pubkey: bytes, entropy: bytes, r1: bytes) -> bool:
    """Step 5: r == x(R1 + t·G) mod n, and the signature verifies."""
    point = point_add(decompress(r1), point_mul(nonce_tweak(r1, entropy) % ORDER))
    return point is not None and point[0] % ORDER == r and ecdsa_verify(decompress(pubkey), msg32, r, s)
