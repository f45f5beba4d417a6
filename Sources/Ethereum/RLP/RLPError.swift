/// Errors from decoding Recursive Length Prefix data; the decoder accepts only the canonical encoding.
public enum RLPError: Error, Equatable, Sendable {
    /// The input is empty.
    case empty
    /// An item's header or payload runs past the end of its input (needed bytes, available bytes).
    case truncated(needed: Int, available: Int)
    /// A single byte below 0x80 was wrapped in a one-byte string header (at offset).
    case nonCanonicalSingleByte(offset: Int)
    /// A long-form length has leading zero bytes (at offset).
    case leadingZeroInLength(offset: Int)
    /// A long-form length is below 56, so the short form was required (at offset).
    case longFormForShortLength(offset: Int)
    /// A length does not fit in memory or overflows (at offset).
    case lengthTooLarge(offset: Int)
    /// Bytes remain after the top-level item.
    case trailingBytes(count: Int)
    /// A list's items do not end exactly at the list's length (at offset).
    case listLengthMismatch(offset: Int)
    /// An integer has a leading zero byte (the canonical form of 0 is the empty string).
    case nonCanonicalInteger
    /// An integer is wider than the field allows (bytes given, maximum).
    case integerTooLarge(bytes: Int, maximum: Int)
    /// A string was expected where a list is, or the other way round (what was expected).
    case unexpectedKind(expected: String)
    /// The structure has the wrong number of items (what it is, found).
    case wrongItemCount(String, found: Int)
    /// Nesting deeper than the decoder allows.
    case tooDeep
}

extension RLPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "no data"
        case .truncated(let needed, let available): "an item needs \(needed) bytes but \(available) remain"
        case .nonCanonicalSingleByte(let offset): "a single byte is wrapped in a string header (byte \(offset))"
        case .leadingZeroInLength(let offset): "a length has leading zero bytes (byte \(offset))"
        case .longFormForShortLength(let offset): "a short length is written in the long form (byte \(offset))"
        case .lengthTooLarge(let offset): "a length is too large (byte \(offset))"
        case .trailingBytes(let count): "\(count) bytes follow the transaction"
        case .listLengthMismatch(let offset): "a list's items do not end at its length (byte \(offset))"
        case .nonCanonicalInteger: "an integer has a leading zero byte"
        case .integerTooLarge(let bytes, let maximum): "an integer is \(bytes) bytes, at most \(maximum) allowed"
        case .unexpectedKind(let expected): "expected \(expected)"
        case .wrongItemCount(let what, let found): "\(what) has \(found) items"
        case .tooDeep: "nested too deeply"
        }
    }
}
