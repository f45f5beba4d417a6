/// Errors from computing a signature hash.
public enum SighashError: Error, Equatable, Sendable {
    /// The input index is not below the number of inputs.
    case inputIndexOutOfRange(index: Int, inputCount: Int)
    /// A hash type BIP341 does not allow.
    case invalidTaprootSighashType(UInt32)
    /// BIP341 needs the spent output of every input; `given` of `needed` were supplied.
    case missingSpentOutputs(needed: Int, given: Int)
    /// BIP341 SIGHASH_SINGLE for an input with no output at its index.
    case singleWithoutOutput(index: Int)
    /// An annex that is empty or does not start with 0x50.
    case invalidAnnex
}
