/// Keccak-256 as Ethereum uses it: the Keccak[r=1088, c=512] sponge with the original `0x01` padding, which differs
/// from FIPS 202 SHA3-256 (`0x06`) only in the domain bits.
///
/// Debian ships no Keccak-256 library, so the Keccak-f[1600] permutation is written here from the reference
/// description (lanes as `UInt64`, little-endian).
/// - SeeAlso: https://keccak.team/keccak_specs_summary.html
public enum Keccak256 {
    /// The rate of the sponge in bytes (1088 bits).
    static let rate = 136

    /// Hashes `bytes` with Keccak-256 (32 bytes out).
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        sponge(Array(bytes), domainSuffix: 0x01)
    }

    /// The sponge over `message` with the given padding suffix (0x01 Keccak, 0x06 SHA3), squeezing 32 bytes.
    static func sponge(_ message: [UInt8], domainSuffix: UInt8) -> [UInt8] {
        var state = [UInt64](repeating: 0, count: 25)
        var offset = 0
        while message.count - offset >= rate {
            absorb(message, from: offset, into: &state)
            KeccakF1600.permute(&state)
            offset += rate
        }
        var last = [UInt8](repeating: 0, count: rate)
        let tail = message.count - offset
        for i in 0..<tail { last[i] = message[offset + i] }
        last[tail] ^= domainSuffix
        last[rate - 1] ^= 0x80
        absorb(last, from: 0, into: &state)
        KeccakF1600.permute(&state)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for lane in 0..<4 {
            for byte in 0..<8 { out.append(UInt8(truncatingIfNeeded: state[lane] >> (8 * UInt64(byte)))) }
        }
        return out
    }

    private static func absorb(_ block: [UInt8], from start: Int, into state: inout [UInt64]) {
        for lane in 0..<(rate / 8) {
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(block[start + lane * 8 + byte]) << (8 * UInt64(byte)) }
            state[lane] ^= word
        }
    }
}

/// The Keccak-f[1600] permutation: 24 rounds of θ, ρ, π, χ, ι over 25 64-bit lanes (index x + 5y).
///
/// - SeeAlso: https://keccak.team/keccak_specs_summary.html
enum KeccakF1600 {
    static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]
    /// ρ offsets, by lane index x + 5y.
    static let rotations: [UInt64] = [
        0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
    ]

    @inline(__always) private static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 {
        n == 0 ? x : (x << n) | (x >> (64 - n))
    }

    /// Applies the 24 rounds to `a` in place.
    static func permute(_ a: inout [UInt64]) {
        precondition(a.count == 25, "Keccak-f[1600] state is 25 lanes")
        var b = [UInt64](repeating: 0, count: 25)
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1)
                for y in 0..<5 { a[x + 5 * y] ^= d }
            }
            // ρ and π: B[y, 2x + 3y] = rot(A[x, y], r[x, y]).
            for x in 0..<5 {
                for y in 0..<5 {
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], rotations[x + 5 * y])
                }
            }
            for y in 0..<5 {
                for x in 0..<5 {
                    a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y])
                }
            }
            a[0] ^= roundConstants[round]
        }
    }
}
