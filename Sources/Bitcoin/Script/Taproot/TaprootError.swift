/// Errors from building taproot script trees or parsing control blocks.
public enum TaprootError: Error, Equatable, Sendable {
    /// A hash of the wrong size (tap leaf and branch hashes are 32 bytes).
    case invalidHashLength(Int)
    /// A control block that is not 33 + 32·m bytes with m ≤ 128.
    case invalidControlBlockLength(Int)
    /// A leaf version with the low bit set (the low bit of the control block's first byte is the parity).
    case invalidLeafVersion(UInt8)
    /// The control block's internal key is not a valid x-only key.
    case invalidInternalKey
    /// A script tree deeper than 128 levels.
    case treeTooDeep(Int)
    /// Tweaking the internal key failed (negligible probability).
    case invalidTweak
}
