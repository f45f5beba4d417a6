import BitcoinCrypto

/// The legacy and BIP144 segwit serializations of a transaction.
extension Transaction: BitcoinCodable {
    /// Reads a transaction in either serialization.
    ///
    /// Counts are checked against the remaining bytes before anything
    /// is allocated.
    ///
    /// - Throws: `EncodingError` for truncated data, non-canonical sizes, impossible counts, a bad segwit flag or a
    ///   segwit serialization without any witness.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0144.mediawiki
    public init(from reader: inout ByteReader) throws(EncodingError) {
        var witnessStart: Int?
        try self.init(from: &reader, witnessStart: &witnessStart)
    }

    /// `init(from:)`, telling where the witnesses begin in a segwit serialization (nil in a legacy one).
    private init(from reader: inout ByteReader, witnessStart: inout Int?) throws(EncodingError) {
        version = try reader.readInt32()
        var segwit = false
        if reader.peekUInt8() == 0x00 {
            _ = try reader.readUInt8()
            let flag = try reader.readUInt8()
            guard flag == 0x01 else { throw .invalidSegwitFlag(flag) }
            segwit = true
        }
        let inputCount = try reader.readCount(minimumItemSize: TxIn.minimumSize)
        var inputs: [TxIn] = []
        inputs.reserveCapacity(inputCount)
        for _ in 0..<inputCount { inputs.append(try TxIn(from: &reader)) }
        let outputCount = try reader.readCount(minimumItemSize: TxOut.minimumSize)
        var outputs: [TxOut] = []
        outputs.reserveCapacity(outputCount)
        for _ in 0..<outputCount { outputs.append(try TxOut(from: &reader)) }
        if segwit {
            witnessStart = reader.offset
            for index in inputs.indices { inputs[index].witness = try Witness(from: &reader) }
            guard inputs.contains(where: { !$0.witness.isEmpty }) else { throw .superfluousWitness }
        }
        lockTime = LockTime(rawValue: try reader.readUInt32())
        self.inputs = inputs
        self.outputs = outputs
    }

    /// Writes the segwit serialization when any input has a witness, else the legacy one.
    public func encode(to writer: inout ByteWriter) { encode(to: &writer, includingWitness: true) }

    /// Writes the transaction, with witnesses only when `includingWitness` is true and some input has one.
    public func encode(to writer: inout ByteWriter, includingWitness: Bool) {
        let segwit = includingWitness && hasWitness
        writer.write(version)
        if segwit {
            writer.write(UInt8(0x00))
            writer.write(UInt8(0x01))
        }
        writer.writeCompactSize(inputs.count)
        for input in inputs { input.encode(to: &writer) }
        writer.writeCompactSize(outputs.count)
        for output in outputs { output.encode(to: &writer) }
        if segwit {
            for input in inputs { input.witness.encode(to: &writer) }
        }
        writer.write(lockTime.rawValue)
    }

    /// The serialization, with or without witnesses.
    public func serialized(includingWitness: Bool) -> [UInt8] {
        var writer = ByteWriter()
        encode(to: &writer, includingWitness: includingWitness)
        return writer.bytes
    }
}

extension Transaction {
    /// Parses all of `raw` (either serialization) and hashes its txid from those bytes: the serialization without
    /// witnesses is `raw` less the segwit marker, flag and witnesses, so nothing is written again (issue 33: a
    /// sync checked each server's transaction against its txid by serializing it anew).
    ///
    /// The same transaction and txid as `init(serialized:)` and `txid`: every serialization this parser accepts is
    /// the canonical one (compact sizes minimal, a segwit form only with a witness), so `serialized()` gives `raw`.
    ///
    /// - Throws: `EncodingError`, as `init(serialized:)`.
    public static func parsingTxid(_ raw: [UInt8]) throws(EncodingError) -> (transaction: Transaction, txid: Txid) {
        var reader = ByteReader(raw)
        var witnessStart: Int?
        let transaction = try Transaction(from: &reader, witnessStart: &witnessStart)
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remainingCount) }
        var hasher = SHA256()
        raw.withUnsafeBytes { bytes in
            if let witnessStart {
                // version ‖ inputs and outputs (after the marker and flag) ‖ lock time
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[0..<4]))
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[6..<witnessStart]))
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 4)...]))
            } else {
                hasher.update(bytes)
            }
        }
        return (transaction, Txid(unchecked: hasher.finalizeDoubled()))
    }
}
