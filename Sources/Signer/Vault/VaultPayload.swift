import Bitcoin
import BitcoinCrypto
import SeedBackup

/// The secret plaintext of a vault, built and read only in `SecretBytes`.
///
/// Layouts (docs/formats.md):
/// - version 1 (BIP39): `0x01 ‖ entropy length (1 byte) ‖ entropy ‖ passphrase length (2 bytes, big-endian) ‖
///   passphrase (UTF-8)`;
/// - version 2 (SLIP-39): `0x02 ‖ flags (1 byte, bit 0: extendable) ‖ iteration exponent (1) ‖ identifier (2,
///   big-endian) ‖ encrypted master secret length (1) ‖ encrypted master secret ‖ passphrase length (2) ‖ passphrase`;
/// - versions 3 and 4: version 1 and 2 followed by the imported keys: `number of keys (2 bytes)`, then per key
///   `chain (1 byte: 0 Bitcoin, 1 Ethereum) ‖ flags (1 byte: bit 0 compressed) ‖ 32 key bytes ‖ label length (1 byte) ‖
///   label (UTF-8)`. They are written only when keys were imported, so other vaults keep the layouts older builds read.
///
/// The passphrase length is 0 when it is not stored.
enum VaultPayload {
    static let version: UInt8 = 1
    static let slip39Version: UInt8 = 2
    static let versionWithKeys: UInt8 = 3
    static let slip39VersionWithKeys: UInt8 = 4
    static let maximumPassphraseLength = 1024
    /// The most keys a vault holds.
    static let maximumImportedKeys = 1000

    /// Encodes the entropy, the optional passphrase and the imported keys.
    static func encode(entropy: SecretBytes, passphrase: SecretBytes?, importedKeys: [ImportedKey] = []) -> SecretBytes
    {
        encode(
            prefix: [importedKeys.isEmpty ? version : versionWithKeys, UInt8(entropy.count)], secret: entropy,
            passphrase: passphrase, importedKeys: importedKeys)
    }

    /// Encodes the vault's secret, the optional passphrase and the imported keys.
    static func encode(_ secret: VaultSecret, passphrase: SecretBytes?, importedKeys: [ImportedKey] = []) -> SecretBytes
    {
        switch secret {
        case .bip39(let mnemonic):
            return encode(entropy: mnemonic.entropy, passphrase: passphrase, importedKeys: importedKeys)
        case .slip39(let encrypted):
            let prefix: [UInt8] = [
                importedKeys.isEmpty ? slip39Version : slip39VersionWithKeys, encrypted.extendable ? 1 : 0,
                UInt8(encrypted.iterationExponent), UInt8(encrypted.identifier >> 8),
                UInt8(encrypted.identifier & 0xFF), UInt8(encrypted.value.count),
            ]
            return encode(prefix: prefix, secret: encrypted.value, passphrase: passphrase, importedKeys: importedKeys)
        }
    }

    private static func encode(
        prefix: [UInt8], secret: SecretBytes, passphrase: SecretBytes?, importedKeys: [ImportedKey]
    ) -> SecretBytes {
        let passphraseCount = passphrase?.count ?? 0
        let keysCount = importedKeys.isEmpty ? 0 : 2 + importedKeys.reduce(0) { $0 + 35 + Array($1.label.utf8).count }
        let out = SecretBytes(count: prefix.count + secret.count + 2 + passphraseCount + keysCount)
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
            guard !importedKeys.isEmpty else { return }
            var offset = at + 2 + passphraseCount
            target[offset] = UInt8(importedKeys.count >> 8)
            target[offset + 1] = UInt8(importedKeys.count & 0xFF)
            offset += 2
            for imported in importedKeys {
                target[offset] = imported.chain.rawValue
                target[offset + 1] = imported.compressed ? 1 : 0
                imported.key.secret.withUnsafeBytes { source in
                    for i in 0..<32 { target[offset + 2 + i] = source[i] }
                }
                let label = Array(imported.label.utf8)
                target[offset + 34] = UInt8(label.count)
                for (i, byte) in label.enumerated() { target[offset + 35 + i] = byte }
                offset += 35 + label.count
            }
        }
        return out
    }

    /// Decodes what `encode` wrote (any layout).
    ///
    /// - Throws: `VaultError.corrupt` for any inconsistency.
    static func decode(
        _ payload: SecretBytes
    ) throws(VaultError) -> (secret: VaultSecret, passphrase: SecretBytes?, importedKeys: [ImportedKey]) {
        struct Entry {
            let chain: ImportedKey.Chain
            let compressed: Bool
            let keyOffset: Int
            let label: String
        }
        typealias Layout = (prefix: Int, secretCount: Int, passphraseCount: Int, keys: [Entry])
        let layout: Layout? = payload.withUnsafeBytes { bytes in
            guard bytes.count >= 4 else { return nil }
            let prefix: Int
            let withKeys: Bool
            switch bytes[0] {
            case version: (prefix, withKeys) = (2, false)
            case slip39Version: (prefix, withKeys) = (6, false)
            case versionWithKeys: (prefix, withKeys) = (2, true)
            case slip39VersionWithKeys: (prefix, withKeys) = (6, true)
            default: return nil
            }
            guard bytes.count >= prefix + 2 else { return nil }
            let secretCount = Int(bytes[prefix - 1])
            guard bytes.count >= prefix + secretCount + 2 else { return nil }
            let at = prefix + secretCount
            let passphraseCount = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            let end = at + 2 + passphraseCount
            guard withKeys else {
                guard bytes.count == end else { return nil }
                return (prefix, secretCount, passphraseCount, [])
            }
            guard bytes.count >= end + 2 else { return nil }
            let count = Int(bytes[end]) << 8 | Int(bytes[end + 1])
            guard (1...maximumImportedKeys).contains(count) else { return nil }
            var offset = end + 2
            var keys: [Entry] = []
            for _ in 0..<count {
                guard bytes.count >= offset + 35, let chain = ImportedKey.Chain(rawValue: bytes[offset]),
                    bytes[offset + 1] <= 1
                else { return nil }
                let labelCount = Int(bytes[offset + 34])
                guard bytes.count >= offset + 35 + labelCount,
                    let label = String(validating: bytes[(offset + 35)..<(offset + 35 + labelCount)], as: UTF8.self)
                else { return nil }
                keys.append(
                    Entry(chain: chain, compressed: bytes[offset + 1] == 1, keyOffset: offset + 2, label: label))
                offset += 35 + labelCount
            }
            guard offset == bytes.count else { return nil }
            return (prefix, secretCount, passphraseCount, keys)
        }
        guard let layout else { throw .corrupt(reason: "the sealed payload has an unknown layout") }
        let secretBytes = payload.slice(layout.prefix..<(layout.prefix + layout.secretCount))
        let start = layout.prefix + layout.secretCount + 2
        let passphrase = layout.passphraseCount > 0 ? payload.slice(start..<(start + layout.passphraseCount)) : nil
        var keys: [ImportedKey] = []
        for entry in layout.keys {
            let key: PrivateKey
            do { key = try PrivateKey(secret: payload.slice(entry.keyOffset..<(entry.keyOffset + 32))) } catch {
                throw .corrupt(reason: "a sealed imported key is not a valid private key")
            }
            keys.append(ImportedKey(chain: entry.chain, key: key, compressed: entry.compressed, label: entry.label))
        }
        let header = payload.slice(0..<layout.prefix).unsafeCopyToArray()
        if header[0] == slip39Version || header[0] == slip39VersionWithKeys {
            guard header[1] <= 1, header[2] <= 15, layout.secretCount >= 16, layout.secretCount % 2 == 0 else {
                throw .corrupt(reason: "the sealed SLIP-39 secret has invalid parameters")
            }
            let encrypted = SLIP39.EncryptedMasterSecret(
                value: secretBytes, identifier: UInt16(header[3]) << 8 | UInt16(header[4]), extendable: header[1] == 1,
                iterationExponent: Int(header[2]))
            return (.slip39(encrypted), passphrase, keys)
        }
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(entropy: secretBytes) } catch {
            throw .corrupt(reason: "the sealed entropy has \(layout.secretCount) bytes")
        }
        return (.bip39(mnemonic), passphrase, keys)
    }
}
