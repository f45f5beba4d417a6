/// A key inside a script expression: an extended key or a single key.
public enum URKey: Equatable, Sendable {
    case hd(URHDKey)
    case ec(URECKey)

    func cbor(tags: URTagSet) -> CBOR {
        switch self {
        case .hd(let key): key.cbor(tags: tags)
        case .ec(let key): key.cbor(tags: tags)
        }
    }

    init(cbor item: CBOR, reader r: RegistryReader) throws(URError) {
        switch item {
        case .tagged(URTag.hdKey, let inner), .tagged(URTag.hdKeyV2, let inner):
            self = .hd(try URHDKey(cbor: inner, reader: r))
        case .tagged(URTag.ecKey, let inner), .tagged(URTag.ecKeyV2, let inner):
            self = .ec(try URECKey(cbor: inner, reader: r))
        default: throw r.fail("key is neither a tagged hdkey nor an eckey")
        }
    }
}
