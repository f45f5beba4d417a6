internal import CNettle

/// The Keccak[r=1088, c=512] sponge on nettle's Keccak-f[1600] permutation (`sha3_permute`), squeezing 32 bytes.
///
/// The padding byte is the caller's: Keccak-256 as Ethereum uses it pads with the original `0x01 … 0x80`, FIPS 202
/// SHA3-256 with `0x06 … 0x80`. nettle's own `sha3_256_*` functions hard-code the latter, so the sponge is driven
/// here over the permutation alone (lanes little-endian, as FIPS 202 and nettle lay them out).
/// - SeeAlso: https://keccak.team/keccak_specs_summary.html
public enum KeccakSponge {
    /// The rate in bytes (1088 bits).
    public static let rate = 136
    /// The output size in bytes.
    public static let outputLength = 32

    /// Absorbs `message`, padded with `domainSuffix … 0x80`, and squeezes 32 bytes.
    public static func hash256(_ message: some Collection<UInt8>, domainSuffix: UInt8) -> [UInt8] {
        var state = sha3_state()
        let bytes = Array(message)
        bytes.withUnsafeBytes { input in
            var offset = 0
            while input.count - offset >= rate {
                absorb(UnsafeRawBufferPointer(rebasing: input[offset..<offset + rate]), into: &state)
                nettle_sha3_permute(&state)
                offset += rate
            }
            var last = [UInt8](repeating: 0, count: rate)
            let tail = input.count - offset
            for i in 0..<tail { last[i] = input[offset + i] }
            last[tail] ^= domainSuffix
            last[rate - 1] ^= 0x80
            last.withUnsafeBytes { absorb($0, into: &state) }
            nettle_sha3_permute(&state)
        }
        var out = [UInt8](repeating: 0, count: outputLength)
        withUnsafeBytes(of: &state.a) { lanes in
            for lane in 0..<(outputLength / 8) {
                let word = lanes.load(fromByteOffset: lane * 8, as: UInt64.self).littleEndian
                for byte in 0..<8 { out[lane * 8 + byte] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(byte))) }
            }
        }
        return out
    }

    /// XORs one `rate`-byte block into the first 17 lanes.
    private static func absorb(_ block: UnsafeRawBufferPointer, into state: inout sha3_state) {
        withUnsafeMutableBytes(of: &state.a) { lanes in
            for lane in 0..<(rate / 8) {
                let word = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: lane * 8, as: UInt64.self))
                let current = lanes.load(fromByteOffset: lane * 8, as: UInt64.self)
                lanes.storeBytes(of: current ^ word, toByteOffset: lane * 8, as: UInt64.self)
            }
        }
    }
}
