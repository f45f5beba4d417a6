internal import CSodium

/// scrypt (RFC 7914) from libsodium (`crypto_pwhash_scryptsalsa208sha256_ll`): the default KDF of Ethereum keystore v3
/// files (Geth writes N = 262144, r = 8, p = 1).
public enum Scrypt {
    /// Why a derivation failed.
    public enum Failure: Error, Equatable, Sendable {
        /// N is not a power of two above 1, r or p is 0, or libsodium refused them (memory).
        case invalidParameters(n: UInt64, r: UInt32, p: UInt32)
    }

    /// Derives `keyLength` bytes from `password` and `salt` with cost N, block size r and parallelism p.
    ///
    /// The caller bounds N × r × p for untrusted parameters: memory is 128 × r × N bytes.
    /// - Throws: `Failure.invalidParameters`.
    public static func derive(
        password: SecretBytes, salt: [UInt8], n: UInt64, r: UInt32, p: UInt32, keyLength: Int
    ) throws(Failure) -> SecretBytes {
        Sodium.ensure()
        guard n > 1, n & (n - 1) == 0, r > 0, p > 0, keyLength > 0 else {
            throw .invalidParameters(n: n, r: r, p: p)
        }
        let output = SecretBytes(count: keyLength)
        let code = password.withBytePointer { pw, pwCount in
            output.withMutableBytePointer { out, outCount in
                crypto_pwhash_scryptsalsa208sha256_ll(pw, pwCount, salt, salt.count, n, r, p, out, outCount)
            }
        }
        guard code == 0 else { throw .invalidParameters(n: n, r: r, p: p) }
        return output
    }
}
