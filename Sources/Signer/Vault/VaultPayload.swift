import Bitcoin
import BitcoinCrypto

/// The secret plaintext of a vault, built and read only in `SecretBytes`.
///
/// Layout: `0x01 ‖ entropy length (1 byte) ‖ entropy ‖ passphrase length (2 bytes, big-endian) ‖ passphrase (UTF-8)`.
///
/// The passphrase length is 0 when it is not stored.
enum VaultPayload {
    static let version: UInt8 = 1
    static let maximumPassphraseLength = 1024

    /// Encodes the entropy and the optional passphrase.
    static func encode(entropy: SecretBytes, passphrase: SecretBytes?) -> SecretBytes {
        let passphraseCount = passphrase?.count ?? 0
        let out = SecretBytes(count: 2 + entropy.count + 2 + passphraseCount)
        out.withUnsafeMutableBytes { target in
            target[0] = version
            target[1] = UInt8(entropy.count)
            entropy.withUnsafeBytes { source in
                for i in 0..<source.count { target[2 + i] = source[i] }
            }
            let at = 2 + entropy.count
            target[at] = UInt8(passphraseCount >> 8)
            target[at + 1] = UInt8(passphraseCount & 0xFF)
            passphrase?.withUnsafeBytes { source in
                for i in 0..<source.count { target[at + 2 + i] = source[i] }
            }
        }
        return out
    }

    /// Decodes what `encode` wrote.
    ///
    /// - Throws: `VaultError.corrupt` for any inconsistency.
    static func decode(_ payload: SecretBytes) throws(VaultError) -> (mnemonic: Mnemonic, passphrase: SecretBytes?) {
        let layout: (entropyCount: Int, passphraseCount: Int)? = payload.withUnsafeBytes { bytes in
            guard bytes.count >= 4, bytes[0] == version else { return nil }
            let entropyCount = Int(bytes[1])
            guard bytes.count >= 2 + entropyCount + 2 else { return nil }
            let at = 2 + entropyCount
            let passphraseCount = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            guard bytes.count == at + 2 + passphraseCount else { return nil }
            return (entropyCount, passphraseCount)
        }
        guard let layout else { throw .corrupt(reason: "the sealed payload has an unknown layout") }
        let entropy = payload.slice(2..<(2 + layout.entropyCount))
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(entropy: entropy) } catch {
            throw .corrupt(reason: "the sealed entropy has \(layout.entropyCount) bytes")
        }
        let start = 2 + layout.entropyCount + 2
        let passphrase = layout.passphraseCount > 0 ? payload.slice(start..<(start + layout.passphraseCount)) : nil
        return (mnemonic, passphrase)
    }
}
