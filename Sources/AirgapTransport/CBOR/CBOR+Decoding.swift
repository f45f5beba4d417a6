extension CBOR {
    /// Decodes exactly one deterministic CBOR item from `bytes`.
    ///
    /// - Throws: `CBORError` on truncated, non-minimal, indefinite, unsorted or too deeply nested input, or on
    ///   trailing bytes.
    /// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8949.html#section-4.2.1
    package init(serialized bytes: [UInt8]) throws(CBORError) {
        var reader = CBORReader(bytes: bytes)
        self = try reader.readItem(depth: 0)
        guard reader.offset == bytes.count else { throw .trailingBytes(count: bytes.count - reader.offset) }
    }
}

/// Reads CBOR items from a byte array, checking every length against the bytes that remain.
private struct CBORReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readBytes(_ count: Int) throws(CBORError) -> [UInt8] {
        guard count <= remaining else { throw .truncated(offset: offset) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Reads a head; returns its major type and argument (or the simple value for major type 7).
    mutating func readHead() throws(CBORError) -> (major: UInt8, value: UInt64, start: Int) {
        let start = offset
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1F
        let value: UInt64
        switch info {
        case 0..<24: value = UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            var v: UInt64 = 0
            for byte in try readBytes(width) { v = v << 8 | UInt64(byte) }
            let minimum: UInt64 = [24, 0x100, 0x1_0000, 0x1_0000_0000][Int(info - 24)]
            if major == 7 { throw .unsupportedSimpleValue(offset: start) }
            guard v >= minimum else { throw .nonMinimalEncoding(offset: start) }
            value = v
        case 31: throw .indefiniteLength(offset: start)
        default: throw .reservedAdditionalInformation(offset: start)
        }
        return (major, value, start)
    }

    mutating func readLength(_ value: UInt64, start: Int, minimumItemSize: Int) throws(CBORError) -> Int {
        guard value <= UInt64(remaining / minimumItemSize) else { throw .lengthTooLarge(offset: start, length: value) }
        return Int(value)
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBOR {
        let (major, value, start) = try readHead()
        switch major {
        case 0: return .unsigned(value)
        case 1: return .negative(value)
        case 2:
            let count = try readLength(value, start: start, minimumItemSize: 1)
            return .bytes(try readBytes(count))
        case 3:
            let count = try readLength(value, start: start, minimumItemSize: 1)
            let utf8 = try readBytes(count)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
            return .text(text)
        case 4:
            guard depth < CBOR.maxDepth else { throw .nestingTooDeep(limit: CBOR.maxDepth) }
            let count = try readLength(value, start: start, minimumItemSize: 1)
            var items: [CBOR] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try readItem(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard depth < CBOR.maxDepth else { throw .nestingTooDeep(limit: CBOR.maxDepth) }
            let count = try readLength(value, start: start, minimumItemSize: 2)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var previousKey: ArraySlice<UInt8>? = nil
            for _ in 0..<count {
                let keyStart = offset
                let key = try readItem(depth: depth + 1)
                let keyBytes = bytes[keyStart..<offset]
                if let previous = previousKey {
                    if previous.elementsEqual(keyBytes) { throw .duplicateMapKey(offset: keyStart) }
                    guard previous.lexicographicallyPrecedes(keyBytes) else { throw .unsortedMapKeys(offset: keyStart) }
                }
                previousKey = keyBytes
                entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            guard depth < CBOR.maxDepth else { throw .nestingTooDeep(limit: CBOR.maxDepth) }
            return .tagged(value, try readItem(depth: depth + 1))
        default:
            switch value {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw .unsupportedSimpleValue(offset: start)
            }
        }
    }
}
