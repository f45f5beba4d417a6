/// A value with a Bitcoin binary encoding, read from a `ByteReader` and written to a `ByteWriter` (docs/architecture.md rule R5).
public protocol BitcoinCodable {
    /// Reads one value from `reader`, leaving it after the value's last byte.
    ///
    /// - Throws: `EncodingError` when the bytes do not hold a valid value.
    init(from reader: inout ByteReader) throws(EncodingError)

    /// Appends the value's encoding to `writer`.
    func encode(to writer: inout ByteWriter)
}

extension BitcoinCodable {
    /// Decodes a value that must span all of `bytes`.
    ///
    /// - Throws: `EncodingError`, or `.trailingBytes` when bytes follow the value.
    public init(serialized bytes: some Collection<UInt8>) throws(EncodingError) {
        var reader = ByteReader(bytes)
        try self.init(from: &reader)
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remainingCount) }
    }

    /// The value's binary encoding.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter()
        encode(to: &writer)
        return writer.bytes
    }
}
