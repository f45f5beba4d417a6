/// One RLP item: a byte string or a list of items.
///
/// - SeeAlso: https://ethereum.org/en/developers/docs/data-structures-and-encoding/rlp/
public indirect enum RLP: Equatable, Sendable {
    /// A byte string.
    case bytes([UInt8])
    /// A list of items.
    case list([RLP])

    /// The item as an unsigned integer: the minimal big-endian bytes (0 is the empty string).
    public static func integer(_ value: UInt64) -> RLP { .bytes(minimalBigEndian(value)) }

    /// The canonical encoding.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        encode(to: &out)
        return out
    }

    func encode(to out: inout [UInt8]) {
        switch self {
        case .bytes(let b):
            if b.count == 1, b[0] < 0x80 {
                out.append(b[0])
            } else {
                Self.appendHeader(length: b.count, shortBase: 0x80, to: &out)
                out.append(contentsOf: b)
            }
        case .list(let items):
            var body: [UInt8] = []
            for item in items { item.encode(to: &body) }
            Self.appendHeader(length: body.count, shortBase: 0xC0, to: &out)
            out.append(contentsOf: body)
        }
    }

    private static func appendHeader(length: Int, shortBase: UInt8, to out: inout [UInt8]) {
        if length < 56 {
            out.append(shortBase + UInt8(length))
        } else {
            let lengthBytes = minimalBigEndian(UInt64(length))
            out.append(shortBase + 55 + UInt8(lengthBytes.count))
            out.append(contentsOf: lengthBytes)
        }
    }

    /// The minimal big-endian bytes of `value` (empty for 0).
    static func minimalBigEndian(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var v = value
        while v > 0 {
            bytes.insert(UInt8(truncatingIfNeeded: v), at: 0)
            v >>= 8
        }
        return bytes
    }

    /// The byte string, or `RLPError.unexpectedKind` for a list.
    public func byteString() throws(RLPError) -> [UInt8] {
        guard case .bytes(let b) = self else { throw .unexpectedKind(expected: "byte string") }
        return b
    }

    /// The list's items, or `RLPError.unexpectedKind` for a byte string.
    public func listItems() throws(RLPError) -> [RLP] {
        guard case .list(let items) = self else { throw .unexpectedKind(expected: "list") }
        return items
    }

    /// The byte string as a canonical unsigned integer of at most `maxBytes` bytes (big-endian, no leading zero).
    public func unsignedBytes(maxBytes: Int) throws(RLPError) -> [UInt8] {
        let b = try byteString()
        if let first = b.first, first == 0 { throw .nonCanonicalInteger }
        guard b.count <= maxBytes else { throw .integerTooLarge(bytes: b.count, maximum: maxBytes) }
        return b
    }

    /// The byte string as a canonical unsigned 64-bit integer.
    public func uint64() throws(RLPError) -> UInt64 {
        try unsignedBytes(maxBytes: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
