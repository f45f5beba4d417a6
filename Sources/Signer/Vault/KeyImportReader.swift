public import Bitcoin
public import BitcoinCrypto
public import Ethereum

/// Why a key given to `key import` is not imported.
public enum KeyImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is empty (white space only).
    case empty
    /// A keystore v3 file was given for Bitcoin.
    case keystoreIsEthereum
    /// 64 hex digits with no chain named.
    case hexNeedsChain
    /// 64 hex digits that are not a valid secp256k1 private key (zero, or not below the group order).
    case invalidHexKey
    /// A WIF key was given for Ethereum.
    case wifIsBitcoin
    /// Neither a WIF, 64 hex digits nor a keystore file.
    case unrecognized
    /// The WIF key's network and the vault's differ.
    case wrongNetwork(key: Network, vault: Network)

    public var description: String {
        switch self {
        case .empty: "the input holds no key"
        case .keystoreIsEthereum: "a keystore v3 file holds an Ethereum key"
        case .hexNeedsChain: "a hex key needs --chain btc or --chain eth"
        case .invalidHexKey: "the hex is not a valid secp256k1 private key"
        case .wifIsBitcoin: "a WIF key is a Bitcoin key (use hex for eth)"
        case .unrecognized: "not a WIF key, 64 hex digits or a keystore v3 file"
        case .wrongNetwork(let key, let vault):
            "the WIF key is for \(key.rawValue) but this vault is on \(vault.rawValue)"
        }
    }
}

/// Reads a private key given to `key import` (docs/signer.md): a keystore v3 JSON file (Ethereum), 64 hex digits
/// (either chain, named), or a WIF (Bitcoin, its network checked against the vault's).
public struct KeyImportReader: Sendable {
    /// The key read, before the vault's network is known (only a WIF's depends on it).
    public struct Candidate: Sendable {
        let key: ImportedKey
        let wifNetwork: Network?

        /// The key to seal into a vault on `network`.
        ///
        /// - Throws: `KeyImportError.wrongNetwork` when a WIF key is for another network than the vault's.
        public func key(for network: Network) throws(KeyImportError) -> ImportedKey {
            if let wifNetwork, (wifNetwork == .main) != (network == .main) {
                throw .wrongNetwork(key: wifNetwork, vault: network)
            }
            return key
        }
    }

    /// Reads `content` (surrounding white space ignored) as a key for `chain` (nil: as the format says).
    ///
    /// `keystorePassword` is asked only for a keystore file.
    ///
    /// - Throws: `KeyImportError`, `KeystoreError` (a wrong keystore password, a malformed file).
    public static func read(
        _ content: SecretBytes, chain: ImportedKey.Chain?, label: String,
        keystorePassword: () throws -> SecretBytes
    ) throws -> Candidate {
        let trimmed = Self.trimmed(content)
        guard trimmed.count > 0 else { throw KeyImportError.empty }
        if trimmed.withUnsafeBytes({ $0[0] }) == UInt8(ascii: "{") {
            if chain == .bitcoin { throw KeyImportError.keystoreIsEthereum }
            let (key, _) = try KeystoreV3.decrypt(json: trimmed.unsafeCopyToArray(), password: keystorePassword())
            return Candidate(key: ImportedKey(chain: .ethereum, key: key, label: label), wifNetwork: nil)
        }
        if let secret = Self.hexKey(trimmed) {
            guard let chain else { throw KeyImportError.hexNeedsChain }
            let key: PrivateKey
            do { key = try PrivateKey(secret: secret) } catch { throw KeyImportError.invalidHexKey }
            return Candidate(key: ImportedKey(chain: chain, key: key, label: label), wifNetwork: nil)
        }
        if chain == .ethereum { throw KeyImportError.wifIsBitcoin }
        let wif: WIF
        do { wif = try WIF(base58: String(decoding: trimmed.unsafeCopyToArray(), as: UTF8.self)) } catch {
            throw KeyImportError.unrecognized
        }
        return Candidate(
            key: ImportedKey(chain: .bitcoin, key: wif.privateKey, compressed: wif.isCompressed, label: label),
            wifNetwork: wif.network)
    }

    /// The content without surrounding white space.
    static func trimmed(_ content: SecretBytes) -> SecretBytes {
        let bounds: Range<Int> = content.withUnsafeBytes { bytes in
            let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
            var start = 0
            var end = bytes.count
            while start < end, space.contains(bytes[start]) { start += 1 }
            while end > start, space.contains(bytes[end - 1]) { end -= 1 }
            return start..<end
        }
        return content.slice(bounds)
    }

    /// 64 hex digits (optional `0x`) decoded into secret memory, or nil.
    static func hexKey(_ text: SecretBytes) -> SecretBytes? {
        text.withUnsafeBytes { bytes -> SecretBytes? in
            var start = 0
            if bytes.count == 66, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") {
                start = 2
            }
            guard bytes.count - start == 64 else { return nil }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case 0x30...0x39: c - 0x30
                case 0x61...0x66: c - 0x61 + 10
                case 0x41...0x46: c - 0x41 + 10
                default: nil
                }
            }
            let out = SecretBytes(count: 32)
            let ok = out.withUnsafeMutableBytes { target -> Bool in
                for i in 0..<32 {
                    guard let high = nibble(bytes[start + 2 * i]), let low = nibble(bytes[start + 2 * i + 1]) else {
                        return false
                    }
                    target[i] = high << 4 | low
                }
                return true
            }
            return ok ? out : nil
        }
    }
}
