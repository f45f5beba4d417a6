/// Errors from detecting, joining or framing payloads.
public enum PayloadError: Error, Equatable, Sendable {
    /// No text or bytes were given, or the text is empty.
    case empty
    /// A BC-UR part or value failed.
    case ur(URError)
    /// A BBQr part or payload failed.
    case bbqr(BBQrError)
    /// A Specter part failed.
    case specter(SpecterMultipartError)
    /// A `bitcoin:` URI failed.
    case bip21(BIP21Error)
    /// Hex, base64 or base32 text failed to decode.
    case textEncoding(TextEncodingError)
    /// Codes from two different payloads were mixed; both are named.
    case mixedPayloads(first: String, second: String)
    /// The payload is not of a type the caller accepts.
    case unexpectedKind(expected: [PayloadKind], actual: PayloadKind)
    /// Not every part has arrived.
    case incomplete(PayloadProgress)
    /// Text that must be UTF-8 (BBQr J or U) is not.
    case invalidUTF8
    /// The payload cannot be framed in the requested format (for example a descriptor as a UR PSBT).
    case unsupportedFrameFormat(kind: PayloadKind, format: FrameFormat)
    /// The payload does not fit one QR code and the format has no multi-part form.
    case doesNotFitOneCode(characters: Int, limit: Int)
}
