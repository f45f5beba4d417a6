internal import CNettle

/// AES-256 in counter mode (FIPS-197, NIST SP 800-38A), from Debian's nettle, as BIP129 (BSMS) encrypts its records:
/// the 16-byte initial counter block is incremented as one 128-bit big-endian number per block.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0129.mediawiki#encryption-scheme
public enum AES256CTR {
    /// Encrypts (or, the same operation, decrypts) `data` under the 32-byte `key` from the counter block `iv`.
    ///
    /// - Throws: `KeyError.invalidLength` for a key that is not 32 bytes or an IV that is not 16.
    public static func apply(key: SecretBytes, iv: [UInt8], to data: [UInt8]) throws(KeyError) -> [UInt8] {
        guard key.count == 32 else { throw .invalidLength(expected: 32, actual: key.count) }
        guard iv.count == 16 else { throw .invalidLength(expected: 16, actual: iv.count) }
        var out = [UInt8](repeating: 0, count: data.count)
        guard !data.isEmpty else { return out }
        var counter = iv
        key.withBytePointer { keyPointer, _ in
            out.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                airlock_aes256_ctr(keyPointer, &counter, buffer.count, base, data)
            }
        }
        return out
    }
}
