import BitcoinCrypto

/// An extended key read from text or bytes: private or public, whichever the version bytes say.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#serialization-format
public enum ExtendedKey: Sendable {
    /// An extended private key (xprv, tprv, zprv, …).
    case privateKey(ExtendedPrivateKey)
    /// An extended public key (xpub, tpub, zpub, …).
    case publicKey(ExtendedPublicKey)

    /// Parses base58check text with any BIP32 or SLIP-132 version.
    ///
    /// - Throws: `BIP32Error.invalidBase58`, `.invalidChecksum`, or any error of `init(serialized:)`.
    public init(base58: String) throws(BIP32Error) {
        var bytes: [UInt8]
        do {
            bytes = try Base58.decodeCheck(base58)
        } catch .checksumMismatch {
            throw .invalidChecksum
        } catch {
            throw .invalidBase58(error)
        }
        defer { SecretBytes.wipe(&bytes) }
        try self.init(serialized: bytes)
    }

    /// Parses the 78-byte serialization: version, depth, parent fingerprint, child number, chain code, key data.
    ///
    /// - Throws: `BIP32Error.invalidLength`, `.unknownVersion`, `.publicVersionWithPrivateKey`,
    ///   `.privateVersionWithPublicKey`, `.invalidPrivateKeyPrefix`, `.invalidPublicKeyPrefix`,
    ///   `.zeroDepthWithParentFingerprint`, `.zeroDepthWithChildNumber`, `.invalidPublicKey` or `.privateKeyOutOfRange`.
    public init(serialized input: some Collection<UInt8>) throws(BIP32Error) {
        var bytes = Array(input)
        defer { SecretBytes.wipe(&bytes) }
        guard bytes.count == 78 else { throw .invalidLength(bytes.count) }
        let version = try ExtendedKeyVersion(rawValue: Self.uint32(bytes, at: 0))
        let depth = bytes[4]
        let parent = Fingerprint(value: Self.uint32(bytes, at: 5))
        let number = ChildNumber(rawValue: Self.uint32(bytes, at: 9))
        var chainCode = Array(bytes[13..<45])
        defer { SecretBytes.wipe(&chainCode) }
        let prefix = bytes[45]
        if version.isPrivate {
            if prefix == 0x02 || prefix == 0x03 { throw .privateVersionWithPublicKey }
            guard prefix == 0x00 else { throw .invalidPrivateKeyPrefix(prefix) }
        } else {
            if prefix == 0x00 { throw .publicVersionWithPrivateKey }
            guard prefix == 0x02 || prefix == 0x03 else { throw .invalidPublicKeyPrefix(prefix) }
        }
        if depth == 0 {
            guard parent == .zero else { throw .zeroDepthWithParentFingerprint }
            guard number.rawValue == 0 else { throw .zeroDepthWithChildNumber }
        }
        if version.isPrivate {
            let key: PrivateKey
            do {
                key = try PrivateKey(secret: SecretBytes(copying: bytes[46..<78]))
            } catch {
                throw .privateKeyOutOfRange
            }
            self = .privateKey(
                ExtendedPrivateKey(
                    version: version, depth: depth, parentFingerprint: parent, childNumber: number,
                    chainCode: SecretBytes(copying: chainCode), privateKey: key))
        } else {
            let key: PublicKey
            do {
                key = try PublicKey(serialized: bytes[45..<78])
            } catch {
                throw .invalidPublicKey
            }
            self = .publicKey(
                ExtendedPublicKey(
                    unchecked: version, depth: depth, parentFingerprint: parent, childNumber: number,
                    chainCode: chainCode, publicKey: key))
        }
    }

    /// The public form: the key itself, or the neutered private key.
    public var extendedPublicKey: ExtendedPublicKey {
        switch self {
        case .privateKey(let key): key.extendedPublicKey
        case .publicKey(let key): key
        }
    }

    /// The version bytes the key was read with.
    public var version: ExtendedKeyVersion {
        switch self {
        case .privateKey(let key): key.version
        case .publicKey(let key): key.version
        }
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
