/// Errors from parsing, joining or splitting BBQr parts.
public enum BBQrError: Error, Equatable, Sendable {
    /// The text does not start with `B$` or is shorter than the 8-character header.
    case notBBQr
    /// An encoding character other than H, 2 or Z.
    case unknownEncoding(Character)
    /// A file-type character the spec does not list (P, T, J, C, U, B, X).
    case unknownFileType(Character)
    /// The count or index is not two base-36 digits, the count is 0, or the index is not below the count.
    case invalidHeader(String)
    /// A part whose encoding, file type or count differs from the parts already received.
    case mixedPayloads(expected: String, actual: String)
    /// Two different bodies for the same index.
    case conflictingPart(index: Int)
    /// Part bodies that cannot come from one honest split (unequal non-final parts, a longer final part,
    /// or a length that is not a whole number of bytes), for example when a header lies about the count.
    case inconsistentPartLengths(index: Int)
    /// A part body that is not valid hex or base32.
    case invalidBody(index: Int, TextEncodingError)
    /// The Z payload is not a valid raw deflate stream, or inflates beyond the size limit.
    case decompressionFailed(String)
    /// zlib returned this code while compressing.
    case zlib(code: Int32)
    /// The data cannot fit the allowed number of parts at the allowed QR versions, or the options are invalid.
    case cannotFit(String)
    /// Nothing to split.
    case empty
}
