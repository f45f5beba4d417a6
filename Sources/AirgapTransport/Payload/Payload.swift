/// A complete payload read from QR codes or a file, with its detected type.
public enum Payload: Equatable, Sendable {
    /// A PSBT, binary (starts with `psbt\xff`); not parsed here.
    case psbt([UInt8])
    /// A raw transaction (from hex, base43, BBQr type T), not parsed here.
    case transaction([UInt8])
    /// Output descriptor text (one or more lines).
    case descriptor(String)
    /// A `crypto-account` UR.
    case cryptoAccount(URCryptoAccount)
    /// A `crypto-output` UR.
    case cryptoOutput(URCryptoOutput)
    /// An `output-descriptor` UR.
    case outputDescriptor(UROutputDescriptor)
    /// An `account-descriptor` UR.
    case accountDescriptor(URAccountDescriptor)
    /// A plain address (checked syntactically only; see `AddressCandidate`).
    case address(String)
    /// A BIP21 URI.
    case bip21(BIP21URI)
    /// JSON text (BBQr type J, or text starting with `{`), for example a wallet export.
    case json(String)
    /// Any other text.
    case text(String)
    /// Any other bytes (`ur:bytes`, BBQr types C, B, X, non-UTF-8 QR bytes).
    case bytes([UInt8])

    /// The payload's type.
    public var kind: PayloadKind {
        switch self {
        case .psbt: .psbt
        case .transaction: .transaction
        case .descriptor: .descriptor
        case .cryptoAccount: .cryptoAccount
        case .cryptoOutput: .cryptoOutput
        case .outputDescriptor: .outputDescriptor
        case .accountDescriptor: .accountDescriptor
        case .address: .address
        case .bip21: .bip21
        case .json: .json
        case .text: .text
        case .bytes: .bytes
        }
    }
}

/// The type of a payload, for `--json` output and for callers that expect one type.
public enum PayloadKind: String, Sendable, CaseIterable, Hashable {
    case psbt
    case transaction
    case descriptor
    case cryptoAccount = "crypto-account"
    case cryptoOutput = "crypto-output"
    case outputDescriptor = "output-descriptor"
    case accountDescriptor = "account-descriptor"
    case address
    case bip21
    case json
    case text
    case bytes
}

/// How a payload was framed in its QR codes or file.
public enum FrameFormat: String, Sendable, CaseIterable {
    /// BC-UR, single or multi-part.
    case ur
    /// BBQr.
    case bbqr
    /// Specter `pMofN`.
    case specter
    /// Base64 (PSBTs).
    case base64
    /// Hex.
    case hex
    /// Electrum base43.
    case base43
    /// Plain text (addresses, URIs, descriptors).
    case plain
    /// Raw bytes from a QR code's byte mode or a binary file.
    case binary
}

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

/// How far a multi-part payload has got.
public struct PayloadProgress: Equatable, Sendable {
    /// The framing of the parts seen.
    public let format: FrameFormat
    /// Distinct parts accepted.
    public let receivedParts: Int
    /// Parts needed (the fragment count for UR, whose fountain parts can replace any missing one), when known.
    public let totalParts: Int?
    /// Fraction complete, 0...1 (for UR the reference decoder's estimate).
    public let fraction: Double
    /// Missing part numbers, 1-based (BBQr index + 1, Specter M, UR fragment number).
    public let missingParts: [Int]
    /// True for UR, where the missing fragments are recovered from any later fountain part, not only their own.
    public let missingIsEstimate: Bool
}
