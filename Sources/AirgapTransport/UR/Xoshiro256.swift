import BitcoinCrypto

/// The Xoshiro256** generator as bc-ur seeds and uses it for fountain-part fragment choice.
///
/// The state is the SHA-256 of the seed bytes, read as four big-endian 64-bit words.
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/xoshiro256.cpp
package struct Xoshiro256: Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    /// Seeds from the SHA-256 of `seed`.
    package init(seed: [UInt8]) {
        let digest = SHA256.hash(seed)
        var words: [UInt64] = [0, 0, 0, 0]
        for i in 0..<4 {
            for n in 0..<8 { words[i] = words[i] << 8 | UInt64(digest[i * 8 + n]) }
        }
        s = (words[0], words[1], words[2], words[3])
    }

    /// Seeds from the SHA-256 of the UTF-8 bytes of `string`.
    package init(string: String) { self.init(seed: Array(string.utf8)) }

    /// Seeds from the SHA-256 of the big-endian bytes of `value` (the CRC-32 constructor).
    package init(uint32 value: UInt32) {
        self.init(seed: [
            UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF),
        ])
    }

    /// Returns the next 64-bit output.
    package mutating func next() -> UInt64 {
        let result = rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotl(s.3, 45)
        return result
    }

    /// Returns `next() / 2^64` as a double in [0, 1] (1 only through rounding, as in the reference).
    package mutating func nextDouble() -> Double {
        Double(next()) / (Double(UInt64.max) + 1)
    }

    /// Returns an integer in `low...high` as the reference computes it, clamped to `high` against rounding.
    package mutating func nextInt(_ low: UInt64, _ high: UInt64) -> UInt64 {
        let span = Double(high - low + 1)
        return min(UInt64(nextDouble() * span) + low, high)
    }

    /// Returns a byte from `nextInt(0, 255)`.
    package mutating func nextByte() -> UInt8 { UInt8(nextInt(0, 255)) }

    /// Returns `count` bytes from `nextByte()`.
    package mutating func nextData(_ count: Int) -> [UInt8] { (0..<count).map { _ in nextByte() } }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
