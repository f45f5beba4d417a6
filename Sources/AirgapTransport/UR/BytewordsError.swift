/// Errors from decoding bytewords text.
public enum BytewordsError: Error, Equatable, Sendable {
    /// A word (or minimal two-letter pair) that is not in the bytewords list.
    case invalidWord(String)
    /// Minimal-style text of odd length.
    case invalidLength(Int)
    /// Fewer than five bytes: no room for a body and the 4-byte checksum.
    case tooShort(byteCount: Int)
    /// The CRC-32 at the end does not match the body.
    case checksumMismatch
}
