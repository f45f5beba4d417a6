/// A transaction input: the output it spends, its scriptSig, nSequence and (segwit) witness.
public struct TxIn: Hashable, Sendable {
    /// The output being spent.
    public var previousOutput: OutPoint
    /// The unlocking script (empty for native segwit).
    public var scriptSig: Script
    /// nSequence.
    public var sequence: SequenceNumber
    /// The witness stack (empty for legacy inputs); serialized apart from the rest (BIP144).
    public var witness: Witness

    /// An input spending `previousOutput`.
    public init(
        previousOutput: OutPoint, scriptSig: Script = .empty, sequence: SequenceNumber = .final,
        witness: Witness = Witness()
    ) {
        self.previousOutput = previousOutput
        self.scriptSig = scriptSig
        self.sequence = sequence
        self.witness = witness
    }

    /// The smallest encoding of an input: outpoint (36), empty script length (1) and sequence (4).
    static let minimumSize = 41

    /// Reads an input without its witness.
    init(from reader: inout ByteReader) throws(EncodingError) {
        previousOutput = try OutPoint(from: &reader)
        scriptSig = Script(try reader.readVarBytes())
        sequence = SequenceNumber(rawValue: try reader.readUInt32())
        witness = Witness()
    }

    /// Writes the input without its witness.
    func encode(to writer: inout ByteWriter) {
        previousOutput.encode(to: &writer)
        writer.writeVarBytes(scriptSig.bytes)
        writer.write(sequence.rawValue)
    }
}
