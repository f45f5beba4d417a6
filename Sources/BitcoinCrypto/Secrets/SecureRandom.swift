internal import CSodium

/// The operating system's cryptographically secure random source (libsodium `randombytes_buf`, getrandom(2) on Linux).
public enum SecureRandom {
    /// `count` random bytes for non-secret uses (salts, nonces, Schnorr auxiliary randomness).
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ensure()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            if let pointer = buffer.baseAddress { randombytes_buf(pointer, buffer.count) }
        }
        return out
    }

    /// `count` random secret bytes (entropy, keys).
    public static func secret(_ count: Int) -> SecretBytes { SecretBytes(randomCount: count) }

    /// A uniformly distributed integer in `0..<upperBound` (no modulo bias), for choosing backup-check positions.
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0, "empty range")
        Sodium.ensure()
        return randombytes_uniform(upperBound)
    }
}
