import BitcoinCrypto

/// Computes signature hashes for one transaction's inputs (legacy, BIP143, BIP341), hashing the parts shared by
/// every input (prevouts, sequences, outputs, amounts, scriptPubKeys) once, so that signing N inputs costs O(N).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0143.mediawiki
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#common-signature-message
public struct SighashCache: Sendable {
    /// The transaction being signed.
    public let transaction: Transaction
    /// The outputs the inputs spend, in input order (required by BIP341; nil when unknown).
    public let spentOutputs: [TxOut]?

    /// The single-SHA256 per-transaction hashes; BIP143 uses their SHA-256 again (double SHA-256).
    struct SharedHashes {
        let prevouts: [UInt8]
        let sequences: [UInt8]
        let outputs: [UInt8]
    }

    /// The BIP341 hashes that need the spent outputs.
    struct SpentOutputHashes {
        let amounts: [UInt8]
        let scriptPubKeys: [UInt8]
    }

    var shared: SharedHashes?
    var spent: SpentOutputHashes?

    /// A cache for `transaction`; `spentOutputs` (one per input) is needed for taproot signature hashes.
    public init(_ transaction: Transaction, spentOutputs: [TxOut]? = nil) {
        self.transaction = transaction
        self.spentOutputs = spentOutputs
    }

    /// sha_prevouts, sha_sequences and sha_outputs (single SHA-256), computed on first use.
    mutating func sharedHashes() -> SharedHashes {
        if let shared { return shared }
        var prevouts = SHA256()
        var sequences = SHA256()
        var outputs = SHA256()
        var writer = ByteWriter(capacity: 64)
        for input in transaction.inputs {
            writer = ByteWriter(capacity: 40)
            input.previousOutput.encode(to: &writer)
            prevouts.update(writer.bytes)
            writer = ByteWriter(capacity: 4)
            writer.write(input.sequence.rawValue)
            sequences.update(writer.bytes)
        }
        for output in transaction.outputs {
            writer = ByteWriter(capacity: 64)
            output.encode(to: &writer)
            outputs.update(writer.bytes)
        }
        let computed = SharedHashes(
            prevouts: prevouts.finalize(), sequences: sequences.finalize(), outputs: outputs.finalize())
        shared = computed
        return computed
    }

    /// sha_amounts and sha_scriptpubkeys, computed on first use.
    mutating func spentOutputHashes(_ outputs: [TxOut]) -> SpentOutputHashes {
        if let spent { return spent }
        var amounts = SHA256()
        var scripts = SHA256()
        for output in outputs {
            var writer = ByteWriter(capacity: 8)
            writer.write(output.value.sats)
            amounts.update(writer.bytes)
            writer = ByteWriter(capacity: output.scriptPubKey.bytes.count + 9)
            writer.writeVarBytes(output.scriptPubKey.bytes)
            scripts.update(writer.bytes)
        }
        let computed = SpentOutputHashes(amounts: amounts.finalize(), scriptPubKeys: scripts.finalize())
        spent = computed
        return computed
    }

    func checkIndex(_ index: Int) throws(SighashError) {
        guard transaction.inputs.indices.contains(index) else {
            throw .inputIndexOutOfRange(index: index, inputCount: transaction.inputs.count)
        }
    }
}
