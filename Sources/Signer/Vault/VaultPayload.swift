import Bitcoin
import BitcoinCrypto

/// The secret plaintext of a vault, built and read only in `SecretBytes`.
///
/// Layout 1: `0x01 ‖ entropy length (1 byte) ‖ entropy ‖ passphrase length (2 bytes, big-endian) ‖ passphrase (UTF-8)`.
/// Layout 2 (written only when keys were imported, so other vaults stay at layout 1 and older builds keep opening
/// them): `0x02 ‖` the same fields `‖ number of keys (2 bytes)`, then per key `chain (1 byte: 0 Bitcoin, 1 Ethereum) ‖
/// flags (1 byte: bit 0 compressed) ‖ 32 key bytes ‖ label length (1 byte) ‖ label (UTF-8)`.
///
/// The passphrase length is 0 when it is not stored.
enum VaultPayload {
    static let version: UInt8 = 1
    static let versionWithKeys: UInt8 = 2
    static let maximumPassphraseLength = 1024
    /// The most keys a vault holds.
    static let maximumImportedKeys = 1000

    /// Encodes the entropy, the optional passphrase and the imported keys.
    static func encode(entropy: SecretBytes, passphrase: SecretBytes?, importedKeys: [ImportedKey] = []) -> SecretBytes
    {
        let passphraseCount = passphrase?.count ?? 0
        let keysCount = importedKeys.isEmpty ? 0 : 2 + importedKeys.reduce(0) { $0 + 35 + Array($1.label.utf8).count }
        let out = SecretBytes(count: 2 + entropy.count + 2 + passphraseCount + keysCount)
        out.withUnsafeMutableBytes { target in
            target[0] = importedKeys.isEmpty ? version : versionWithKeys
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

    /// Decodes what `encode` wrote (either layout).
    ///
    /// - Throws: `VaultError.corrupt` for any inconsistency.
    static func decode(
        _ payload: SecretBytes
    ) throws(VaultError) -> (mnemonic: Mnemonic, passphrase: SecretBytes?, importedKeys: [ImportedKey]) {
        struct Entry {
            let chain: ImportedKey.Chain
            let compressed: Bool
            let keyOffset: Int
            let label: String
        }
        let layout: (entropyCount: Int, passphraseCount: Int, keys: [Entry])? = payload.withUnsafeBytes { bytes in
            guard bytes.count >= 4, bytes[0] == version || bytes[0] == versionWithKeys else { return nil }
            let entropyCount = Int(bytes[1])
            guard bytes.count >= 2 + entropyCount + 2 else { return nil }
            let at = 2 + entropyCount
            let passphraseCount = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            let end = at + 2 + passphraseCount
            if bytes[0] == version {
                guard bytes.count == end else { return nil }
                return (entropyCount, passphraseCount, [])
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
            return (entropyCount, passphraseCount, keys)
        }
        guard let layout else { throw .corrupt(reason: "the sealed payload has an unknown layout") }
        let entropy = payload.slice(2..<(2 + layout.entropyCount))
        let mnemonic: Mnemonic
        do { mnemonic = try Mnemonic(entropy: entropy) } catch {
            throw .corrupt(reason: "the sealed entropy has \(layout.entropyCount) bytes")
        }
        let start = 2 + layout.entropyCount + 2
        let passphrase = layout.passphraseCount > 0 ? payload.slice(start..<(start + layout.passphraseCount)) : nil
        var keys: [ImportedKey] = []
        for entry in layout.keys {
            let key: PrivateKey
            do { key = try PrivateKey(secret: payload.slice(entry.keyOffset..<(entry.keyOffset + 32))) } catch {
                throw .corrupt(reason: "a sealed imported key is not a valid private key")
            }
            keys.append(ImportedKey(chain: entry.chain, key: key, compressed: entry.compressed, label: entry.label))
        }
        return (mnemonic, passphrase, keys)
    }
}
