/// An input's witness: a stack of byte strings (BIP141).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0144.mediawiki
public struct Witness: Hashable, Sendable {
    /// The stack items, bottom first.
    public var items: [[UInt8]]

    /// A witness of `items`.
    public init(_ items: [[UInt8]] = []) { self.items = items }

    /// Whether the witness has no items.
    public var isEmpty: Bool { items.isEmpty }
}

extension Witness: BitcoinCodable {
    public init(from reader: inout ByteReader) throws(EncodingError) {
        let count = try reader.readCount(minimumItemSize: 1)
        var items: [[UInt8]] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try reader.readVarBytes()) }
        self.items = items
    }

    public func encode(to writer: inout ByteWriter) {
        writer.writeCompactSize(items.count)
        for item in items { writer.writeVarBytes(item) }
    }
}
