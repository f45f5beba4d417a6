/// Errors from parsing UR strings, fountain-decoding multi-part URs and decoding UR registry types.
public enum URError: Error, Equatable, Sendable {
    /// The text does not start with `ur:`.
    case notUR
    /// The UR type is empty or has characters outside `a-z`, `0-9` and `-`.
    case invalidType(String)
    /// The text after `ur:` does not have the shape `type/body` or `type/seqNum-seqLen/body`.
    case invalidPath(String)
    /// The `seqNum-seqLen` component is malformed or out of range.
    case invalidSequence(String)
    /// The bytewords body failed to decode.
    case bytewords(BytewordsError)
    /// The CBOR inside the UR failed to decode.
    case cbor(CBORError)
    /// A multi-part body is not a valid fountain part.
    case invalidFountainPart(String)
    /// The `seqNum-seqLen` in the text disagrees with the part's CBOR.
    case sequenceMismatch(header: String, seqNum: UInt32, seqLen: Int)
    /// A part whose seqLen, length or checksum differs from the parts already received (another message).
    case partFromDifferentMessage(expectedChecksum: UInt32, actualChecksum: UInt32, seqNum: UInt32)
    /// A part of a different UR type than the parts already received.
    case mixedTypes(expected: String, actual: String)
    /// The reassembled message does not match its CRC-32.
    case checksumMismatch(expected: UInt32, actual: UInt32)
    /// The UR type is not the one the caller asked for.
    case unexpectedType(expected: [String], actual: String)
    /// The UR type is not one this module decodes.
    case unsupportedType(String)
    /// The CBOR is well formed but does not match the registry type's definition.
    case invalidRegistryItem(type: String, reason: String)
    /// A fragment length below 1 or a message that cannot be encoded.
    case invalidEncoderParameters(String)
}
