/// Errors from decoding text encodings (hex, base58, base58check, bech32) and binary serialization.
public enum EncodingError: Error, Equatable, Sendable {
    /// A character outside the encoding's alphabet, with its position.
    case invalidCharacter(Character, position: Int)
    /// Hex text with an odd number of digits.
    case oddLength(Int)
    /// A base58check or bech32 checksum does not match.
    case checksumMismatch
    /// The decoded data is shorter or longer than the format allows.
    case invalidLength(expected: String, actual: Int)
    /// Bech32 text mixes upper and lower case.
    case mixedCase
    /// Bech32 text without a separator, with an empty or invalid human-readable part, or over 90 characters.
    case invalidBech32Format(String)
    /// Bech32 padding bits are non-zero or too many.
    case invalidPadding
    /// Binary data ended before a field of `needed` bytes at `offset`.
    case unexpectedEnd(offset: Int, needed: Int)
    /// Binary data has bytes after the value ended.
    case trailingBytes(count: Int)
    /// A compact-size integer is not minimally encoded, or is larger than the field allows.
    case nonCanonicalCompactSize(offset: Int)
    /// A length or count is larger than the remaining data could hold.
    case lengthOutOfRange(offset: Int, length: UInt64)
    /// A transaction's segwit marker 0x00 is followed by a flag other than 0x01 (BIP144).
    case invalidSegwitFlag(UInt8)
    /// A transaction uses the segwit serialization but every input's witness is empty (BIP144).
    case superfluousWitness
    /// An output value at `offset` above 21,000,000 BTC.
    case valueOutOfRange(offset: Int, value: UInt64)
}

extension EncodingError: CustomStringConvertible {
    /// What is wrong with the text or bytes, in words (no case names in a message a user reads).
    public var description: String {
        switch self {
        case .invalidCharacter(let character, let position):
            "the character '\(character)' at position \(position + 1) does not belong there"
        case .oddLength(let count): "hex text of \(count) digits (an odd count: one is missing or extra)"
        case .checksumMismatch: "the checksum does not match (a character is mistyped or missing)"
        case .invalidLength(let expected, let actual): "\(actual) bytes where \(expected) belong"
        case .mixedCase: "upper and lower case mixed"
        case .invalidBech32Format(let why): "not valid bech32 (\(why))"
        case .invalidPadding: "not valid bech32 (bad padding)"
        case .unexpectedEnd(let offset, let needed): "the data ends early (\(needed) more bytes needed at \(offset))"
        case .trailingBytes(let count): "\(count) extra bytes after the end"
        case .nonCanonicalCompactSize(let offset): "a badly encoded length at byte \(offset)"
        case .lengthOutOfRange(let offset, let length): "a length of \(length) at byte \(offset) is past the end"
        case .invalidSegwitFlag(let flag): "an unknown segwit flag \(flag)"
        case .superfluousWitness: "the segwit form without any witness"
        case .valueOutOfRange(let offset, _): "an output value above 21,000,000 BTC at byte \(offset)"
        }
    }
}
