import BitcoinCrypto

/// A BIP32 extended public key: a public key, its chain code and its place in the tree.
///
/// Normal children come from CKDpub; the fingerprint is computed once, so deriving many children of one account is
/// one HMAC and one point addition each.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki
public struct ExtendedPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The version the key was read or made with (xpub, tpub, zpub, …); `standardBase58String` ignores it.
    public let version: ExtendedKeyVersion
    /// The depth in the tree: 0 for a master key.
    public let depth: UInt8
    /// The fingerprint of the parent key (zero for a master key).
    public let parentFingerprint: Fingerprint
    /// The child number this key has under its parent (zero for a master key).
    public let childNumber: ChildNumber
    /// The 32-byte chain code.
    public let chainCode: [UInt8]
    /// The public key.
    public let publicKey: PublicKey
    /// This key's own fingerprint (HASH160 of the public key, first 4 bytes).
    public let fingerprint: Fingerprint

    /// An extended public key from its parts.
    ///
    /// - Throws: `BIP32Error.invalidLength` for a chain code that is not 32 bytes, `.unexpectedKeyKind` for a
    ///   private version, `.zeroDepthWithParentFingerprint` / `.zeroDepthWithChildNumber` for an inconsistent master.
    public init(
        version: ExtendedKeyVersion,
        depth: UInt8,
        parentFingerprint: Fingerprint,
        childNumber: ChildNumber,
        chainCode: [UInt8],
        publicKey: PublicKey
    ) throws(BIP32Error) {
        guard !version.isPrivate else { throw .unexpectedKeyKind(expectedPrivate: false) }
        guard chainCode.count == 32 else { throw .invalidLength(chainCode.count) }
        if depth == 0 {
            guard parentFingerprint == .zero else { throw .zeroDepthWithParentFingerprint }
            guard childNumber.rawValue == 0 else { throw .zeroDepthWithChildNumber }
        }
        self.init(
            unchecked: version, depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
            chainCode: chainCode, publicKey: publicKey)
    }

    init(
        unchecked version: ExtendedKeyVersion,
        depth: UInt8,
        parentFingerprint: Fingerprint,
        childNumber: ChildNumber,
        chainCode: [UInt8],
        publicKey: PublicKey
    ) {
        self.version = version
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.chainCode = chainCode
        self.publicKey = publicKey
        self.fingerprint = Fingerprint(of: publicKey)
    }

    /// Parses base58check text with any public version (xpub, tpub, ypub, zpub, Ypub, Zpub, upub, vpub, Upub, Vpub).
    ///
    /// - Throws: `BIP32Error` naming what is wrong; `.unexpectedKeyKind` for a private key.
    public init(base58: String) throws(BIP32Error) {
        switch try ExtendedKey(base58: base58) {
        case .publicKey(let key): self = key
        case .privateKey: throw .unexpectedKeyKind(expectedPrivate: false)
        }
    }

    /// Parses the 78-byte serialization.
    ///
    /// - Throws: `BIP32Error` naming what is wrong; `.unexpectedKeyKind` for a private key.
    public init(serialized bytes: some Collection<UInt8>) throws(BIP32Error) {
        switch try ExtendedKey(serialized: bytes) {
        case .publicKey(let key): self = key
        case .privateKey: throw .unexpectedKeyKind(expectedPrivate: false)
        }
    }

    /// The normal child `number` (CKDpub).
    ///
    /// - Throws: `BIP32Error.hardenedDerivationFromPublicKey`, `.depthOverflow` at depth 255, or `.invalidChild`.
    public func deriveChild(_ number: ChildNumber) throws(BIP32Error) -> ExtendedPublicKey {
        // One implementation of CKDpub: `NormalChildKeys`, which a descriptor's `/*` keeps for many children.
        let (child, chainCode) = try NormalChildKeys(self).child(number, chainCode: true)
        return ExtendedPublicKey(
            unchecked: version, depth: depth + 1, parentFingerprint: fingerprint, childNumber: number,
            chainCode: chainCode, publicKey: child)
    }

    /// The public keys of this key's normal children, for deriving many of them (a descriptor's `/*`).
    public var normalChildren: NormalChildKeys { NormalChildKeys(self) }

    /// The descendant at `path`, which must hold only normal steps.
    ///
    /// - Throws: `BIP32Error.hardenedDerivationFromPublicKey`, `.depthOverflow` or `.invalidChild`.
    public func derive(_ path: DerivationPath) throws(BIP32Error) -> ExtendedPublicKey {
        var key = self
        for number in path.components { key = try key.deriveChild(number) }
        return key
    }

    /// The same key with other version bytes (for example zpub → xpub); the version's kind must be public.
    ///
    /// - Throws: `BIP32Error.unexpectedKeyKind` for a private version.
    public func withVersion(_ version: ExtendedKeyVersion) throws(BIP32Error) -> ExtendedPublicKey {
        guard !version.isPrivate else { throw .unexpectedKeyKind(expectedPrivate: false) }
        return ExtendedPublicKey(
            unchecked: version, depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
            chainCode: chainCode, publicKey: publicKey)
    }

    /// The 78-byte serialization with this key's version.
    public func serialized() -> [UInt8] {
        var out = version.serialized()
        out.reserveCapacity(78)
        out.append(depth)
        out += parentFingerprint.serialized()
        out += childNumber.serialized()
        out += chainCode
        out += publicKey.compressed
        return out
    }

    /// Base58check text with this key's version (`zpub…` stays `zpub…`).
    public var base58String: String { Base58.encodeCheck(serialized()) }

    /// Base58check text with the standard version of the key's network (xpub or tpub), as descriptors use.
    public var standardBase58String: String {
        var bytes = serialized()
        bytes.replaceSubrange(0..<4, with: version.standard.serialized())
        return Base58.encodeCheck(bytes)
    }

    public var description: String { base58String }

    public static func == (lhs: ExtendedPublicKey, rhs: ExtendedPublicKey) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }
}

/// The public keys of the normal children of one extended public key (CKDpub), each equal to
/// `deriveChild(number).publicKey`, at less cost when many are derived: the HMAC keyed with the chain code and the
/// parent's key absorbed once, and no chain code or fingerprint made for a child (an address needs only its key).
///
/// A sync derives every address of a wallet this way (issue 33: BIP32 derivation was 13.7% of a 5,000-transaction
/// sync's instructions, docs/benchmarks.md).
public struct NormalChildKeys: Sendable {
    /// HMAC-SHA512 keyed with the parent's chain code, its compressed key absorbed: what every child's MAC starts with.
    private let mac: HMACSHA512
    private let parent: PublicKey
    private let depth: UInt8

    init(_ key: ExtendedPublicKey) {
        var mac = HMACSHA512(key: key.chainCode)
        mac.update(key.publicKey.compressed)
        self.mac = mac
        parent = key.publicKey
        depth = key.depth
    }

    /// The public key of the normal child `number`.
    ///
    /// - Throws: `BIP32Error.hardenedDerivationFromPublicKey`, `.depthOverflow` at depth 255, or `.invalidChild`,
    ///   as `ExtendedPublicKey.deriveChild` does.
    public func publicKey(_ number: ChildNumber) throws(BIP32Error) -> PublicKey {
        try child(number, chainCode: false).key
    }

    /// The public key of the normal child `number` and, when `chainCode`, its chain code (else empty): CKDpub, the
    /// one implementation (`ExtendedPublicKey.deriveChild` is this with the chain code).
    func child(_ number: ChildNumber, chainCode: Bool) throws(BIP32Error) -> (key: PublicKey, chainCode: [UInt8]) {
        guard !number.isHardened else { throw .hardenedDerivationFromPublicKey(number) }
        guard depth < UInt8.max else { throw .depthOverflow }
        var mac = self.mac
        var serialized = number.rawValue.bigEndian
        withUnsafeBytes(of: &serialized) { mac.update($0) }
        let i = mac.finalize()
        do {
            return (try parent.adding(tweak: i[0..<32]), chainCode ? Array(i[32..<64]) : [])
        } catch {
            throw .invalidChild(number)
        }
    }
}

extension ChildNumber {
    /// The 4 bytes, big-endian.
    public func serialized() -> [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }
}
