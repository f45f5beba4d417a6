/// Errors from decoding hex, base32, base43 or base64 text into bytes.
public enum TextEncodingError: Error, Equatable, Sendable {
    /// The text has a character outside the encoding's alphabet, at this offset.
    case invalidCharacter(encoding: String, offset: Int)
    /// The text's length is impossible for the encoding (odd hex, base32 remainder of 1, 3 or 6 characters…).
    case invalidLength(encoding: String, length: Int)
    /// The base32 or base64 text has non-zero padding bits.
    case nonCanonicalPadding(encoding: String)
}
