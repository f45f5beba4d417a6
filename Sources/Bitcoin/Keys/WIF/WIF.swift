import BitcoinCrypto

/// A private key in wallet import format: base58check of prefix ‖ key ‖ (0x01 when the public key is compressed).
///
/// The text is secret. The description is redacted and there is no `Codable`.
/// - SeeAlso: https://en.bitcoin.it/wiki/Wallet_import_format
public struct WIF: Sendable {
    /// The private key.
    public let privateKey: PrivateKey
    /// Whether the key's public key is used in compressed form.
    public let isCompressed: Bool
    /// `.main`, or `.test` for every test network (they share the prefix 0xEF).
    public let network: Network

    /// A WIF key from its parts; signet and regtest are stored as `.test`, which encodes identically.
    public init(privateKey: PrivateKey, isCompressed: Bool = true, network: Network) {
        self.privateKey = privateKey
        self.isCompressed = isCompressed
        self.network = network == .main ? .main : .test
    }

    /// Decodes WIF text.
    ///
    /// - Throws: `WIFError.invalidBase58`, `.invalidChecksum`, `.invalidLength`, `.unknownPrefix`,
    ///   `.invalidCompressionFlag` or `.invalidPrivateKey`.
    public init(base58: String) throws(WIFError) {
        var payload: [UInt8]
        do {
            payload = try Base58.decodeCheck(base58)
        } catch .checksumMismatch {
            throw .invalidChecksum
        } catch {
            throw .invalidBase58(error)
        }
        defer { SecretBytes.wipe(&payload) }
        guard payload.count == 33 || payload.count == 34 else { throw .invalidLength(payload.count) }
        switch payload[0] {
        case Network.main.wifPrefix: self.network = .main
        case Network.test.wifPrefix: self.network = .test
        default: throw .unknownPrefix(payload[0])
        }
        if payload.count == 34 {
            guard payload[33] == 0x01 else { throw .invalidCompressionFlag(payload[33]) }
        }
        self.isCompressed = payload.count == 34
        do {
            self.privateKey = try PrivateKey(secret: SecretBytes(copying: payload[1..<33]))
        } catch {
            throw .invalidPrivateKey
        }
    }

    /// The public key, compressed or not as the flag says (`PublicKey` keeps both encodings).
    public var publicKey: PublicKey { privateKey.publicKey }

    /// The public key bytes as scripts use them: 33 bytes when compressed, 65 otherwise.
    public var publicKeyBytes: [UInt8] { isCompressed ? publicKey.compressed : publicKey.uncompressed }

    /// The WIF text.
    ///
    /// It is secret: show it only when the user asks.
    public var base58String: String {
        var payload = [network.wifPrefix] + privateKey.secret.unsafeCopyToArray()
        if isCompressed { payload.append(0x01) }
        defer { SecretBytes.wipe(&payload) }
        return Base58.encodeCheck(payload)
    }
}

extension WIF: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "WIF(\(network), compressed: \(isCompressed), <redacted>)" }
    public var debugDescription: String { description }
}
