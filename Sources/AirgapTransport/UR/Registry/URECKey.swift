/// A single elliptic-curve key as `crypto-eckey` carries it.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-008-eckey.md
public struct URECKey: Equatable, Sendable {
    /// Whether `data` is a private key.
    public var isPrivate: Bool
    /// 33-byte compressed (or 65-byte uncompressed) public key, or a 32-byte private key.
    public var data: [UInt8]

    public init(isPrivate: Bool = false, data: [UInt8]) {
        self.isPrivate = isPrivate
        self.data = data
    }

    func cbor(tags: URTagSet) -> CBOR {
        .tagged(tags.ecKey, .intMap([(2, isPrivate ? .bool(true) : nil), (3, .bytes(data))]))
    }

    init(cbor item: CBOR, reader r: RegistryReader) throws(URError) {
        let m = try r.map(item, context: "eckey")
        guard (try r.uint32(m[1], context: "curve") ?? 0) == 0 else { throw r.fail("eckey curve is not secp256k1") }
        isPrivate = try r.bool(m[2], context: "is-private") ?? false
        guard let data = try r.bytes(m[3], context: "eckey data"), [32, 33, 65].contains(data.count) else {
            throw r.fail("eckey data is not 32, 33 or 65 bytes")
        }
        self.data = data
    }
}
