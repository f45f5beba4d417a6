extension RLP {
    /// The deepest list nesting the decoder follows (transactions need 3: tx, access list, entry, keys).
    static let maximumDepth = 64

    /// Decodes exactly one canonical RLP item from `bytes`.
    ///
    /// - Throws: `RLPError` for truncated or non-canonical input (a single byte below 0x80 wrapped, a long-form
    ///   length below 56 or with leading zeros) or trailing bytes.
    public init(serialized bytes: some Collection<UInt8>) throws(RLPError) {
        let input = Array(bytes)
        guard !input.isEmpty else { throw .empty }
        var offset = 0
        self = try Self.decodeItem(input, at: &offset, end: input.count, depth: 0)
        guard offset == input.count else { throw .trailingBytes(count: input.count - offset) }
    }

    private static func decodeItem(_ b: [UInt8], at offset: inout Int, end: Int, depth: Int) throws(RLPError) -> RLP {
        guard depth <= maximumDepth else { throw .tooDeep }
        guard offset < end else { throw .truncated(needed: 1, available: 0) }
        let start = offset
        let prefix = b[offset]
        offset += 1
        switch prefix {
        case 0x00...0x7F:
            return .bytes([prefix])
        case 0x80...0xB7:
            let length = Int(prefix - 0x80)
            let payload = try take(b, at: &offset, count: length, end: end)
            if length == 1, payload[0] < 0x80 { throw .nonCanonicalSingleByte(offset: start) }
            return .bytes(payload)
        case 0xB8...0xBF:
            let length = try longLength(b, at: &offset, count: Int(prefix - 0xB7), end: end, headerAt: start)
            return .bytes(try take(b, at: &offset, count: length, end: end))
        case 0xC0...0xF7:
            return .list(try items(b, at: &offset, length: Int(prefix - 0xC0), end: end, depth: depth, start: start))
        default:
            let length = try longLength(b, at: &offset, count: Int(prefix - 0xF7), end: end, headerAt: start)
            return .list(try items(b, at: &offset, length: length, end: end, depth: depth, start: start))
        }
    }

    private static func items(
        _ b: [UInt8], at offset: inout Int, length: Int, end: Int, depth: Int, start: Int
    ) throws(RLPError) -> [RLP] {
        guard length <= end - offset else { throw .truncated(needed: length, available: end - offset) }
        let listEnd = offset + length
        var result: [RLP] = []
        while offset < listEnd {
            result.append(try decodeItem(b, at: &offset, end: listEnd, depth: depth + 1))
        }
        guard offset == listEnd else { throw .listLengthMismatch(offset: start) }
        return result
    }

    private static func longLength(
        _ b: [UInt8], at offset: inout Int, count: Int, end: Int, headerAt: Int
    ) throws(RLPError) -> Int {
        let lengthBytes = try take(b, at: &offset, count: count, end: end)
        guard lengthBytes[0] != 0 else { throw .leadingZeroInLength(offset: headerAt) }
        guard count <= 7 else { throw .lengthTooLarge(offset: headerAt) }
        let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        guard length >= 56 else { throw .longFormForShortLength(offset: headerAt) }
        return length
    }

    private static func take(_ b: [UInt8], at offset: inout Int, count: Int, end: Int) throws(RLPError) -> [UInt8] {
        guard count <= end - offset else { throw .truncated(needed: count, available: end - offset) }
        defer { offset += count }
        return Array(b[offset..<(offset + count)])
    }
}
