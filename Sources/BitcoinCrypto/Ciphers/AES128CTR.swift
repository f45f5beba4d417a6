internal import CNettle

/// AES-128 in counter mode (NIST SP 800-38A), from Debian's nettle: the cipher of Ethereum keystore v3 files.
///
/// The counter block is the whole 16-byte IV, incremented as a 128-bit big-endian number per block (as Geth and
/// eth-keyfile use it). Encryption and decryption are the same operation.
public enum AES128CTR {
    /// The key size in bytes.
    public static let keyLength = 16
    /// The IV (initial counter block) size in bytes.
    public static let ivLength = 16

    /// Encrypts or decrypts `input` under `key` from the counter block `iv`.
    ///
    /// - Precondition: `key` has 16 bytes and `iv` 16 bytes (callers check lengths from untrusted input first).
    /// - Returns: the output, in secret memory (it is a private key when decrypting).
    public static func apply(key: SecretBytes, iv: [UInt8], to input: some Collection<UInt8>) -> SecretBytes {
        precondition(key.count == keyLength && iv.count == ivLength, "AES-128-CTR needs a 16-byte key and IV")
        var source = Array(input)
        defer { SecretBytes.wipe(&source) }
        var counter = iv
        let output = SecretBytes(count: source.count)
        guard !source.isEmpty else { return output }
        key.withBytePointer { keyPointer, _ in
            output.withMutableBytePointer { out, count in
                airlock_aes128_ctr(keyPointer, &counter, count, out, source)
            }
        }
        return output
    }
}
