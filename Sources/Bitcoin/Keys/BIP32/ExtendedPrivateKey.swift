import BitcoinCrypto

/// A BIP32 extended private key: a private key (in `SecretBytes`), its chain code and its place in the tree.
///
/// The public key and fingerprint are computed once at creation, so normal children (CKDpriv) cost one HMAC and one
/// scalar addition plus the child's own public key. The description is redacted and there is no `Codable`.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki
public struct ExtendedPrivateKey: Sendable {
    /// The version the key was read or made with (xprv, tprv, zprv, …).
    public let version: ExtendedKeyVersion
    /// The depth in the tree: 0 for a master key.
    public let depth: UInt8
    /// The fingerprint of the parent key (zero for a master key).
    public let parentFingerprint: Fingerprint
    /// The child number this key has under its parent (zero for a master key).
    public let childNumber: ChildNumber
    /// The 32-byte chain code, in secret memory (with the public key it derives every normal child's key).
    public let secretChainCode: SecretBytes
    /// A copy of the chain code in ordinary memory, for the extended public key (which publishes it).
    public var chainCode: [UInt8] { secretChainCode.unsafeCopyToArray() }
    /// The private key.
    public let privateKey: PrivateKey
    /// The public key of `privateKey`.
    public let publicKey: PublicKey
    /// This key's own fingerprint.
    public let fingerprint: Fingerprint

    /// The HMAC key of BIP32 master key generation.
    private static let masterKey = Array("Bitcoin seed".utf8)

    init(
        version: ExtendedKeyVersion,
        depth: UInt8,
        parentFingerprint: Fingerprint,
        childNumber: ChildNumber,
        chainCode: SecretBytes,
        privateKey: PrivateKey
    ) {
        self.version = version
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.secretChainCode = chainCode
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        self.fingerprint = Fingerprint(of: publicKey)
    }

    /// The master key of `seed` (16 to 64 bytes): HMAC-SHA512("Bitcoin seed", seed).
    ///
    /// - Throws: `BIP32Error.invalidSeedLength`, or `.privateKeyOutOfRange` in the ~2^-127 case of an invalid key.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#master-key-generation
    public init(seed: SecretBytes, network: Network = .main) throws(BIP32Error) {
        guard (16...64).contains(seed.count) else { throw .invalidSeedLength(seed.count) }
        var mac = HMACSHA512(key: Self.masterKey)
        mac.update(seed)
        let i = mac.finalizeSecret()
        let key: PrivateKey
        do {
            key = try PrivateKey(secret: i.slice(0..<32))
        } catch {
            throw .privateKeyOutOfRange
        }
        self.init(
            version: ExtendedKeyVersion(network: network, isPrivate: true), depth: 0, parentFingerprint: .zero,
            childNumber: ChildNumber(rawValue: 0), chainCode: i.slice(32..<64), privateKey: key)
    }

    /// Parses base58check text with any private version (xprv, tprv, yprv, zprv, Yprv, Zprv, uprv, vprv, Uprv, Vprv).
    ///
    /// - Throws: `BIP32Error` naming what is wrong; `.unexpectedKeyKind` for a public key.
    public init(base58: String) throws(BIP32Error) {
        switch try ExtendedKey(base58: base58) {
        case .privateKey(let key): self = key
        case .publicKey: throw .unexpectedKeyKind(expectedPrivate: true)
        }
    }

    /// The child `number`, hardened or normal (CKDpriv).
    ///
    /// - Throws: `BIP32Error.depthOverflow` at depth 255, or `.invalidChild` in the ~2^-127 case.
    public func deriveChild(_ number: ChildNumber) throws(BIP32Error) -> ExtendedPrivateKey {
        guard depth < UInt8.max else { throw .depthOverflow }
        var mac = HMACSHA512(key: secretChainCode)
        defer { mac.wipe() }
        if number.isHardened {
            mac.update([0])
            mac.update(privateKey.secret)
        } else {
            mac.update(publicKey.compressed)
        }
        mac.update(number.serialized())
        let i = mac.finalizeSecret()
        let child: PrivateKey
        do {
            child = try privateKey.adding(secretTweak: i.slice(0..<32))
        } catch {
            throw .invalidChild(number)
        }
        return ExtendedPrivateKey(
            version: version, depth: depth + 1, parentFingerprint: fingerprint, childNumber: number,
            chainCode: i.slice(32..<64), privateKey: child)
    }

    /// The descendant at `path`.
    ///
    /// - Throws: `BIP32Error.depthOverflow` or `.invalidChild`.
    public func derive(_ path: DerivationPath) throws(BIP32Error) -> ExtendedPrivateKey {
        var key = self
        for number in path.components { key = try key.deriveChild(number) }
        return key
    }

    /// The extended public key (N), keeping the version's network and script hint (zprv → zpub).
    public var extendedPublicKey: ExtendedPublicKey {
        ExtendedPublicKey(
            unchecked: version.publicVersion, depth: depth, parentFingerprint: parentFingerprint,
            childNumber: childNumber, chainCode: chainCode, publicKey: publicKey)
    }

    /// The same key with other version bytes (for example zprv → xprv); the version must be a private one.
    ///
    /// - Throws: `BIP32Error.unexpectedKeyKind` for a public version.
    public func withVersion(_ version: ExtendedKeyVersion) throws(BIP32Error) -> ExtendedPrivateKey {
        guard version.isPrivate else { throw .unexpectedKeyKind(expectedPrivate: true) }
        return ExtendedPrivateKey(
            version: version, depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
            chainCode: secretChainCode, privateKey: privateKey, publicKey: publicKey, fingerprint: fingerprint)
    }

    private init(
        version: ExtendedKeyVersion, depth: UInt8, parentFingerprint: Fingerprint, childNumber: ChildNumber,
        chainCode: SecretBytes, privateKey: PrivateKey, publicKey: PublicKey, fingerprint: Fingerprint
    ) {
        self.version = version
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.secretChainCode = chainCode
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.fingerprint = fingerprint
    }

    /// The 78-byte serialization with this key's version, in secret memory.
    public func serialized() -> SecretBytes {
        var head = version.serialized()
        head.append(depth)
        head += parentFingerprint.serialized()
        head += childNumber.serialized()
        return SecretBytes(copying: head).appending(secretChainCode).appending(SecretBytes(count: 1))
            .appending(privateKey.secret)
    }

    /// Base58check text with this key's version.
    ///
    /// The text is secret: show it only when the user asks.
    public var base58String: String { encode(version: version) }

    /// Base58check text with the standard version of the key's network (xprv or tprv).
    ///
    /// The text is secret.
    public var standardBase58String: String { encode(version: version.standard) }

    /// The base58check text; the 78 bytes are assembled in secret memory and their one ordinary copy (which
    /// Base58 needs) is wiped.
    private func encode(version: ExtendedKeyVersion) -> String {
        guard let other = try? withVersion(version) else { return "" }
        var bytes = other.serialized().unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        return Base58.encodeCheck(bytes)
    }
}

extension ExtendedPrivateKey: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "ExtendedPrivateKey(\(fingerprint), depth \(depth), <redacted>)" }
    public var debugDescription: String { description }
}
