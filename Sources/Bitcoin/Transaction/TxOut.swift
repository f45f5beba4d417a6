/// A transaction output: an amount and the scriptPubKey that locks it.
public struct TxOut: Hashable, Sendable {
    /// The amount.
    public var value: Amount
    /// The locking script.
    public var scriptPubKey: Script

    /// An output paying `value` to `scriptPubKey`.
    public init(value: Amount, scriptPubKey: Script) {
        self.value = value
        self.scriptPubKey = scriptPubKey
    }

    /// The smallest encoding of an output: value (8) and empty script length (1).
    static let minimumSize = 9
}

extension TxOut: BitcoinCodable {
    public init(from reader: inout ByteReader) throws(EncodingError) {
        let offset = reader.offset
        let sats = try reader.readUInt64()
        guard let value = try? Amount(sats: sats) else { throw .valueOutOfRange(offset: offset, value: sats) }
        self.value = value
        self.scriptPubKey = Script(try reader.readVarBytes())
    }

    public func encode(to writer: inout ByteWriter) {
        writer.write(value.sats)
        writer.writeVarBytes(scriptPubKey.bytes)
    }
}
