/// An output descriptor as `crypto-output` carries it: a chain of script-expression tags around keys.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-010-output-desc.md
public indirect enum URCryptoOutput: Equatable, Sendable {
    /// `sh(…)`, tag 400.
    case sh(URCryptoOutput)
    /// `wsh(…)`, tag 401.
    case wsh(URCryptoOutput)
    /// `pk(KEY)`, tag 402.
    case pk(URKey)
    /// `pkh(KEY)`, tag 403.
    case pkh(URKey)
    /// `wpkh(KEY)`, tag 404.
    case wpkh(URKey)
    /// `combo(KEY)`, tag 405.
    case combo(URKey)
    /// `multi(k, KEY…)`, tag 406.
    case multi(threshold: Int, keys: [URKey])
    /// `sortedmulti(k, KEY…)`, tag 407.
    case sortedMulti(threshold: Int, keys: [URKey])
    /// `tr(KEY)`, tag 409 (key path only).
    case tr(URKey)
    /// `cosigner(KEY)`, tag 410: one participant's key for a multisig wallet.
    case cosigner(URKey)

    /// The keys in the expression, in order.
    public var keys: [URKey] {
        switch self {
        case .sh(let inner), .wsh(let inner): inner.keys
        case .pk(let k), .pkh(let k), .wpkh(let k), .combo(let k), .tr(let k), .cosigner(let k): [k]
        case .multi(_, let keys), .sortedMulti(_, let keys): keys
        }
    }

    /// The descriptor text, with each key written by `renderKey` (for an hdkey, typically
    /// `key.keyExpression(encodedKey: base58(xpub))`; for an eckey, its hex).
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki
    public func descriptorText(renderKey: (URKey) -> String) -> String {
        switch self {
        case .sh(let inner): "sh(\(inner.descriptorText(renderKey: renderKey)))"
        case .wsh(let inner): "wsh(\(inner.descriptorText(renderKey: renderKey)))"
        case .pk(let k): "pk(\(renderKey(k)))"
        case .pkh(let k): "pkh(\(renderKey(k)))"
        case .wpkh(let k): "wpkh(\(renderKey(k)))"
        case .combo(let k): "combo(\(renderKey(k)))"
        case .tr(let k): "tr(\(renderKey(k)))"
        case .cosigner(let k): "cosigner(\(renderKey(k)))"
        case .multi(let t, let keys): "multi(\(([String(t)] + keys.map(renderKey)).joined(separator: ",")))"
        case .sortedMulti(let t, let keys): "sortedmulti(\(([String(t)] + keys.map(renderKey)).joined(separator: ",")))"
        }
    }

    /// The CBOR of the expression (without the 308 tag), v1 tags inside.
    public func serialized() -> [UInt8] { cbor().serialized() }

    /// Decodes the CBOR of a `ur:crypto-output`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        try self.init(cbor: item, reader: RegistryReader(type: "crypto-output"))
    }

    func cbor() -> CBOR {
        switch self {
        case .sh(let inner): .tagged(URTag.sh, inner.cbor())
        case .wsh(let inner): .tagged(URTag.wsh, inner.cbor())
        case .pk(let k): .tagged(URTag.pk, k.cbor(tags: .v1))
        case .pkh(let k): .tagged(URTag.pkh, k.cbor(tags: .v1))
        case .wpkh(let k): .tagged(URTag.wpkh, k.cbor(tags: .v1))
        case .combo(let k): .tagged(URTag.combo, k.cbor(tags: .v1))
        case .tr(let k): .tagged(URTag.tr, k.cbor(tags: .v1))
        case .cosigner(let k): .tagged(URTag.cosigner, k.cbor(tags: .v1))
        case .multi(let t, let keys):
            .tagged(URTag.multi, .intMap([(1, .unsigned(UInt64(t))), (2, .array(keys.map { $0.cbor(tags: .v1) }))]))
        case .sortedMulti(let t, let keys):
            .tagged(
                URTag.sortedMulti, .intMap([(1, .unsigned(UInt64(t))), (2, .array(keys.map { $0.cbor(tags: .v1) }))]))
        }
    }

    init(cbor item: CBOR, reader r: RegistryReader) throws(URError) {
        guard case .tagged(let tag, let inner) = item else { throw r.fail("script expression is not tagged") }
        switch tag {
        case URTag.sh: self = .sh(try URCryptoOutput(cbor: inner, reader: r))
        case URTag.wsh: self = .wsh(try URCryptoOutput(cbor: inner, reader: r))
        case URTag.pk: self = .pk(try URKey(cbor: inner, reader: r))
        case URTag.pkh: self = .pkh(try URKey(cbor: inner, reader: r))
        case URTag.wpkh: self = .wpkh(try URKey(cbor: inner, reader: r))
        case URTag.combo: self = .combo(try URKey(cbor: inner, reader: r))
        case URTag.tr: self = .tr(try URKey(cbor: inner, reader: r))
        case URTag.cosigner: self = .cosigner(try URKey(cbor: inner, reader: r))
        case URTag.multi, URTag.sortedMulti:
            let m = try r.map(inner, context: "multisig")
            guard let threshold = try r.uint32(m[1], context: "threshold"), case .array(let list)? = m[2],
                threshold >= 1, Int(threshold) <= list.count
            else { throw r.fail("multisig needs 1 <= threshold <= number of keys") }
            var keys: [URKey] = []
            for key in list { keys.append(try URKey(cbor: key, reader: r)) }
            self =
                tag == URTag.multi
                ? .multi(threshold: Int(threshold), keys: keys)
                : .sortedMulti(threshold: Int(threshold), keys: keys)
        default:
            throw r.fail("unsupported script expression tag \(tag)")
        }
    }
}
