import Bitcoin
import BitcoinCrypto

/// The secret plaintext of a vault, built and read only in `SecretBytes`.
///
/// Layouts (docs/formats.md):
/// - version 1 (BIP39): `0x01 ‖ entropy length (1 byte) ‖ entropy ‖ passphrase length (2 bytes, big-endian) ‖
///   passphrase (UTF-8)`;
/// - version 2 (SLIP-39): `0x02 ‖ flags (1 byte, bit 0: extendable) ‖ iteration exponent (1) ‖ identifier (2,
///   big-endian) ‖ encrypted master secret length (1) ‖ encrypted master secret ‖ passphrase length (2) ‖ passphrase`.
///
/// The passphrase length is 0 when it is not stored.
enum VaultPayload {
    static let version: UInt8 = 1
    static let slip39Version: UInt8 = 2
    static let maximumPassphraseLength = 1024

    /// Encodes the entropy and the optional passphrase.
    static func encode(entropy: SecretBytes, passphrase: SecretBytes?) -> SecretBytes {
        encode(prefix: [version, UInt8(entropy.count)], secret: entropy, passphrase: passphrase)
    }

    /// Encodes the vault's secret and the optional passphrase.
    static func encode(_ secret: VaultSecret, passphrase: SecretBytes?) -> SecretBytes {
        switch secret {
        case .bip39(let mnemonic):
            return encode(entropy: mnemonic.entropy, passphrase: passphrase)
        case .slip39(let encrypted):
            let prefix: [UInt8] = [
                slip39Version, encrypted.extendable ? 1 : 0, UInt8(encrypted.iterationExponent),
                UInt8(encrypted.identifier >> 8), UInt8(encrypted.identifier & 0xFF), UInt8(encrypted.value.count),
            ]
            return encode(prefix: prefix, secret: encrypted.value, passphrase: passphrase)
        }
    }

    private static func encode(prefix: [UInt8], secret: SecretBytes, passphrase: SecretBytes?) -> SecretBytes {
        let passphraseCount = passphrase?.count ?? 0
        let out = SecretBytes(count: prefix.count + secret.count + 2 + passphraseCount)
        out.withUnsafeMutableBytes { target in
            for (i, byte) in prefix.enumerated() { target[i] = byte }
            secret.withUnsafeBytes { source in
                for i in 0..<source.count { target[prefix.count + i] = source[i] }
            }
            let at = prefix.count + secret.count
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
    static func decode(_ payload: SecretBytes) throws(VaultError) -> (secret: VaultSecret, passphrase: SecretBytes?) {
        let layout: (prefix: Int, secretCount: Int, passphraseCount: Int)? = payload.withUnsafeBytes { bytes in
            guard bytes.count >= 4 else { return nil }
            let prefix: Int
            switch bytes[0] {
            case version: prefix = 2
            case slip39Version: prefix = 6
            default: return nil
            }
            guard bytes.count >= prefix + 2 else { return nil }
            let secretCount = Int(bytes[prefix - 1])
            guard bytes.count >= prefix + secretCount + 2 else { return nil }
            let at = prefix + secretCount
            let passphraseCount = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            guard bytes.count == at + 2 + passphraseCount else { return nil }
            return (prefix, secretCount, passphraseCount)
        }
        guard let layout else { throw .corrupt(reason: "the sealed payload has an unknown layout") }
        let secretBytes = payload.slice(layout.prefix..<(layout.prefix + layout.secretCount))
        let start = layout.prefix + layout.secretCount + 2
        let passphrase = layout.passphraseCount > 0 ? payload.slice(start..<(start + layout.passphraseCount)) : nil
        let header = payload.slice(0..<layout.prefix).unsafeCopyToArray()
        if header[0] == slip39Version {
            guard header[1] <= 1, header[2] <= 15, layout.secretCount >= 16, layout.secretCount % 2 == 0 else {
                throw .corrupt(reason: "the sealed SLIP-39 secret has invalid parameters")
            }
            let encrypted = SLIP39.EncryptedMasterSecret(
                value: secretBytes, identifier: UInt16(header[3]) << 8 | UInt16(header[4]), extendable: header[1] == 1,
                iterationExponent: Int(header[2]))
            return (.slip39(encrypted), passphrase)
        }
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(entropy: secretBytes) } catch {
            throw .corrupt(reason: "the sealed entropy has \(layout.secretCount) bytes")
        }
        return (.bip39(mnemonic), passphrase)
    }
}
