/// Writes Bitcoin's binary encodings: little-endian integers, compact sizes and length-prefixed bytes.
///
/// - SeeAlso: https://en.bitcoin.it/wiki/Protocol_documentation#Variable_length_integer
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer, optionally with room reserved for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends raw bytes.
    public mutating func write(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }

    /// Appends one byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    private mutating func writeLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for i in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// Appends a little-endian 16-bit integer.
    public mutating func write(_ value: UInt16) { writeLittleEndian(value) }
    /// Appends a little-endian 32-bit integer.
    public mutating func write(_ value: UInt32) { writeLittleEndian(value) }
    /// Appends a little-endian 64-bit integer.
    public mutating func write(_ value: UInt64) { writeLittleEndian(value) }
    /// Appends a little-endian two's-complement 32-bit integer.
    public mutating func write(_ value: Int32) { writeLittleEndian(UInt32(bitPattern: value)) }

    /// Appends a compact-size integer in its minimal form.
    public mutating func writeCompactSize(_ value: UInt64) {
        switch value {
        case 0..<0xFD: bytes.append(UInt8(value))
        case 0xFD...0xFFFF:
            bytes.append(0xFD)
            writeLittleEndian(UInt16(value))
        case 0x1_0000...0xFFFF_FFFF:
            bytes.append(0xFE)
            writeLittleEndian(UInt32(value))
        default:
            bytes.append(0xFF)
            writeLittleEndian(value)
        }
    }

    /// Appends a compact-size count.
    public mutating func writeCompactSize(_ value: Int) { writeCompactSize(UInt64(value)) }

    /// Appends bytes prefixed with their compact-size length.
    public mutating func writeVarBytes(_ data: some Collection<UInt8>) {
        writeCompactSize(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// The size in bytes of the compact-size encoding of `value`.
    public static func compactSizeLength(_ value: Int) -> Int {
        switch value {
        case ..<0xFD: 1
        case ...0xFFFF: 3
        case ...0xFFFF_FFFF: 5
        default: 9
        }
    }
}
