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
