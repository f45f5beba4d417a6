/// Reads Bitcoin's binary encodings from bytes: little-endian integers, compact sizes and length-prefixed bytes,
/// every read bounds-checked.
///
/// - SeeAlso: https://en.bitcoin.it/wiki/Protocol_documentation#Variable_length_integer
public struct ByteReader: Sendable {
    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset: Int

    /// A reader at the start of `bytes`.
    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        self.offset = 0
    }

    /// The number of bytes not read yet.
    public var remainingCount: Int { bytes.count - offset }
    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// The next `count` bytes.
    ///
    /// - Throws: `EncodingError.unexpectedEnd` when fewer remain.
    public mutating func read(count: Int) throws(EncodingError) -> [UInt8] {
        guard count >= 0, count <= remainingCount else { throw .unexpectedEnd(offset: offset, needed: count) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The next byte.
    ///
    /// - Throws: `EncodingError.unexpectedEnd`.
    public mutating func readUInt8() throws(EncodingError) -> UInt8 {
        guard remainingCount >= 1 else { throw .unexpectedEnd(offset: offset, needed: 1) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next byte without consuming it, or nil at the end.
    public func peekUInt8() -> UInt8? { isAtEnd ? nil : bytes[offset] }

    private mutating func readLittleEndian<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type
    ) throws(EncodingError) -> T {
        let size = MemoryLayout<T>.size
        guard remainingCount >= size else { throw .unexpectedEnd(offset: offset, needed: size) }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += size
        return value
    }

    /// A little-endian 16-bit integer.
    public mutating func readUInt16() throws(EncodingError) -> UInt16 { try readLittleEndian(UInt16.self) }
    /// A little-endian 32-bit integer.
    public mutating func readUInt32() throws(EncodingError) -> UInt32 { try readLittleEndian(UInt32.self) }
    /// A little-endian 64-bit integer.
    public mutating func readUInt64() throws(EncodingError) -> UInt64 { try readLittleEndian(UInt64.self) }
    /// A little-endian two's-complement 32-bit integer.
    public mutating func readInt32() throws(EncodingError) -> Int32 { Int32(bitPattern: try readUInt32()) }

    /// A compact-size integer (1, 3, 5 or 9 bytes), rejecting encodings that are not minimal as Bitcoin Core does.
    ///
    /// - Throws: `EncodingError.unexpectedEnd` or `.nonCanonicalCompactSize`.
    public mutating func readCompactSize() throws(EncodingError) -> UInt64 {
        let start = offset
        let first = try readUInt8()
        switch first {
        case 0xFD:
            let value = try readUInt16()
            guard value >= 0xFD else { throw .nonCanonicalCompactSize(offset: start) }
            return UInt64(value)
        case 0xFE:
            let value = try readUInt32()
            guard value > 0xFFFF else { throw .nonCanonicalCompactSize(offset: start) }
            return UInt64(value)
        case 0xFF:
            let value = try readUInt64()
            guard value > 0xFFFF_FFFF else { throw .nonCanonicalCompactSize(offset: start) }
            return value
        default:
            return UInt64(first)
        }
    }

    /// A compact-size count of items that each take at least `minimumItemSize` bytes, checked against the bytes
    /// left so that a forged count cannot make the caller allocate more than the input could hold.
    ///
    /// - Throws: `EncodingError.lengthOutOfRange` when the remaining bytes cannot hold that many items.
    public mutating func readCount(minimumItemSize: Int) throws(EncodingError) -> Int {
        let start = offset
        let count = try readCompactSize()
        let limit = UInt64(remainingCount / Swift.max(minimumItemSize, 1))
        guard count <= limit else { throw .lengthOutOfRange(offset: start, length: count) }
        return Int(count)
    }

    /// Bytes prefixed with their compact-size length.
    ///
    /// - Throws: `EncodingError.lengthOutOfRange` when the length exceeds the bytes left.
    public mutating func readVarBytes() throws(EncodingError) -> [UInt8] {
        let count = try readCount(minimumItemSize: 1)
        return try read(count: count)
    }
}
