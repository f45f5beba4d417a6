/// Errors from decoding the deterministic CBOR subset that BC-UR uses.
public enum CBORError: Error, Equatable, Sendable {
    /// The input ended inside an item that needed this many more bytes.
    case truncated(offset: Int)
    /// Bytes were left after the top-level item.
    case trailingBytes(count: Int)
    /// An integer or length was not encoded in its shortest form (RFC 8949 section 4.2.1).
    case nonMinimalEncoding(offset: Int)
    /// An indefinite-length item, which deterministic CBOR forbids.
    case indefiniteLength(offset: Int)
    /// A reserved additional-information value (28-30).
    case reservedAdditionalInformation(offset: Int)
    /// A floating-point number, `undefined` or another simple value outside false/true/null.
    case unsupportedSimpleValue(offset: Int)
    /// A text string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Map keys not in strictly increasing bytewise order of their encodings.
    case unsortedMapKeys(offset: Int)
    /// The same key twice in one map.
    case duplicateMapKey(offset: Int)
    /// Arrays, maps and tags nested deeper than the limit.
    case nestingTooDeep(limit: Int)
    /// A length that cannot fit in the remaining input.
    case lengthTooLarge(offset: Int, length: UInt64)
}
