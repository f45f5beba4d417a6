/// A reference to a transaction output: the txid and the output index.
public struct OutPoint: Hashable, Sendable {
    /// The transaction that created the output.
    public let txid: Txid
    /// The output's index in that transaction.
    public let vout: UInt32

    /// The output `vout` of `txid`.
    public init(txid: Txid, vout: UInt32) {
        self.txid = txid
        self.vout = vout
    }

    /// Parses `TXID:VOUT` (the displayed txid hex, a decimal index).
    ///
    /// - Throws: `EncodingError.invalidLength` or the hex decoding error.
    public init(string: String) throws(EncodingError) {
        let parts = string.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let vout = UInt32(parts[1]) else {
            throw .invalidLength(expected: "TXID:VOUT", actual: string.count)
        }
        self.init(txid: try Txid(hex: String(parts[0])), vout: vout)
    }
}

extension OutPoint: CustomStringConvertible {
    /// `TXID:VOUT`.
    public var description: String { "\(txid):\(vout)" }
}

extension OutPoint: BitcoinCodable {
    public init(from reader: inout ByteReader) throws(EncodingError) {
        self.init(txid: try Txid(from: &reader), vout: try reader.readUInt32())
    }

    public func encode(to writer: inout ByteWriter) {
        txid.encode(to: &writer)
        writer.write(vout)
    }
}
