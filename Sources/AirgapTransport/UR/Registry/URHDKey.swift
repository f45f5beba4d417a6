/// A BIP32 extended key as `crypto-hdkey` carries it (public keys only in Airlock's use).
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-007-hdkey.md
public struct URHDKey: Equatable, Sendable {
    /// The network from `use-info` (the coin type is `coinType`).
    public enum Network: UInt64, Sendable {
        case mainnet = 0
        case testnet = 1
    }

    /// Whether this is a master key (key 1 `is-master`).
    public var isMaster: Bool
    /// Whether `keyData` is a private key (key 2 `is-private`).
    public var isPrivate: Bool
    /// 33 bytes: a compressed public key, or 0x00 and a private key.
    public var keyData: [UInt8]
    /// 32-byte chain code, when given.
    public var chainCode: [UInt8]?
    /// Network from `use-info`; nil when absent (mainnet by the spec's default).
    public var network: Network?
    /// SLIP-44 coin type from `use-info`: nil or 0 for Bitcoin, 60 for Ethereum (EIP-4527).
    public var coinType: UInt32?
    /// Path from the master key to this key.
    public var origin: URKeypath?
    /// Path from this key to the keys it stands for (`1/*`).
    public var children: URKeypath?
    /// Fingerprint of this key's parent.
    public var parentFingerprint: KeyFingerprint?
    /// Optional name.
    public var name: String?
    /// Optional note.
    public var note: String?

    public init(
        isMaster: Bool = false, isPrivate: Bool = false, keyData: [UInt8], chainCode: [UInt8]?, network: Network? = nil,
        origin: URKeypath? = nil, children: URKeypath? = nil, parentFingerprint: KeyFingerprint? = nil,
        name: String? = nil, note: String? = nil, coinType: UInt32? = nil
    ) {
        self.coinType = coinType
        self.isMaster = isMaster
        self.isPrivate = isPrivate
        self.keyData = keyData
        self.chainCode = chainCode
        self.network = network
        self.origin = origin
        self.children = children
        self.parentFingerprint = parentFingerprint
        self.name = name
        self.note = note
    }

    /// The raw BIP32 serialization fields, for the caller to add the version bytes and base58check it.
    public struct ExtendedKeyFields: Equatable, Sendable {
        /// Derivation depth.
        public let depth: UInt8
        /// Fingerprint of the parent key (0 for a master key).
        public let parentFingerprint: KeyFingerprint
        /// Child number with the hardened bit (2^31) set for hardened steps.
        public let childNumber: UInt32
        /// 32-byte chain code.
        public let chainCode: [UInt8]
        /// 33-byte key data.
        public let keyData: [UInt8]
    }

    /// The fields of the BIP32 serialization; nil without a chain code.
    ///
    /// Depth is the origin's `depth`, else its component count; the child number is the origin's last index.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#serialization-format
    public var extendedKeyFields: ExtendedKeyFields? {
        guard let chainCode else { return nil }
        let depth = origin?.depth ?? UInt8(clamping: origin?.components.count ?? 0)
        var child: UInt32 = 0
        if case .index(let i, let hardened) = origin?.components.last { child = hardened ? i | 0x8000_0000 : i }
        return ExtendedKeyFields(
            depth: depth, parentFingerprint: parentFingerprint ?? KeyFingerprint(rawValue: 0), childNumber: child,
            chainCode: chainCode, keyData: keyData)
    }

    /// The descriptor key expression around `encodedKey` (the base58 xpub): `[origin]xpub…/children`.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#key-expressions
    public func keyExpression(encodedKey: String) -> String {
        var text = (origin?.originText ?? "") + encodedKey
        if let children, !children.components.isEmpty { text += "/" + children.pathText }
        return text
    }

    /// The CBOR of a standalone `ur:crypto-hdkey` (the untagged map, v1 tags inside).
    public func serialized() -> [UInt8] {
        guard case .tagged(_, let map) = cbor(tags: .v1) else { return [] }
        return map.serialized()
    }

    /// Decodes the CBOR of a standalone `ur:crypto-hdkey`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        try self.init(cbor: item, reader: RegistryReader(type: "crypto-hdkey"))
    }

    func cbor(tags: URTagSet) -> CBOR {
        var entries: [(UInt64, CBOR?)] = []
        entries.append((1, isMaster ? CBOR.bool(true) : nil))
        entries.append((2, isPrivate ? CBOR.bool(true) : nil))
        entries.append((3, CBOR.bytes(keyData)))
        entries.append((4, chainCode.map { CBOR.bytes($0) }))
        let coin = coinType.flatMap { $0 == 0 ? nil : CBOR.unsigned(UInt64($0)) }
        if network != nil || coin != nil {
            let info = CBOR.intMap([(1, coin), (2, network.map { CBOR.unsigned($0.rawValue) })])
            entries.append((5, CBOR.tagged(tags.coinInfo, info)))
        }
        entries.append((6, origin?.cbor(tags: tags)))
        entries.append((7, children?.cbor(tags: tags)))
        entries.append((8, parentFingerprint.map { CBOR.unsigned(UInt64($0.rawValue)) }))
        entries.append((9, name.map { CBOR.text($0) }))
        entries.append((10, note.map { CBOR.text($0) }))
        return .tagged(tags.hdKey, .intMap(entries))
    }

    init(cbor item: CBOR, reader r: RegistryReader) throws(URError) {
        let m = try r.map(item, context: "hdkey")
        isMaster = try r.bool(m[1], context: "is-master") ?? false
        isPrivate = try r.bool(m[2], context: "is-private") ?? false
        guard let key = try r.bytes(m[3], context: "key-data"), key.count == 33 else {
            throw r.fail("hdkey key-data is not 33 bytes")
        }
        keyData = key
        chainCode = try r.bytes(m[4], context: "chain-code")
        if let chainCode, chainCode.count != 32 { throw r.fail("hdkey chain-code is not 32 bytes") }
        if isMaster, chainCode == nil { throw r.fail("master hdkey without chain-code") }
        if let info = m[5] {
            let coin = try r.map(
                r.untag(info, [URTag.coinInfo, URTag.coinInfoV2], context: "use-info"), context: "coininfo")
            let coinType = try r.uint32(coin[1], context: "coin type")
            guard [0, 60].contains(coinType ?? 0) else { throw r.fail("coin type is neither BTC (0) nor ETH (60)") }
            self.coinType = coinType == 0 ? nil : coinType
            let raw = UInt64(try r.uint32(coin[2], context: "network") ?? 0)
            guard let network = Network(rawValue: raw) else { throw r.fail("unknown network \(raw)") }
            self.network = network
        } else {
            network = nil
            coinType = nil
        }
        origin = try m[6].map { (v: CBOR) throws(URError) in try URKeypath(cbor: v, reader: r) }
        children = try m[7].map { (v: CBOR) throws(URError) in try URKeypath(cbor: v, reader: r) }
        parentFingerprint = try r.uint32(m[8], context: "parent-fingerprint").map(KeyFingerprint.init(rawValue:))
        name = try r.text(m[9], context: "name")
        note = try r.text(m[10], context: "note")
    }
}
