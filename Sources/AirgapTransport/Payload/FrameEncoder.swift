/// Splits an outgoing payload into the texts of one or more QR codes: BC-UR, BBQr, or base64/plain in one code.
///
/// Defaults are chosen for a phone camera reading a laptop screen (docs/qr-formats.md explains the numbers).
public struct FrameEncoder: Sendable {
    /// Airlock's default UR fragment length in bytes (Sparrow's "normal" density); ~850 characters per code.
    public static let defaultURFragmentLength = 400
    /// Bytes a version-40, level-L QR code holds in byte mode: the limit for base64 in one code.
    public static let singleCodeByteLimit = 2953

    /// UR: at most this many bytes of CBOR per part.
    public var urMaxFragmentLength: Int
    /// UR: parts to emit beyond the fragment count, for a looping display; nil picks `max(2, seqLen / 2)`.
    public var urExtraParts: Int?
    /// UR type for PSBTs: `crypto-psbt` (what Sparrow, Keystone, SeedSigner read) or `psbt` (UR 2.0 registry).
    public var urPSBTType: String
    /// BBQr: encoding and QR version range.
    public var bbqr: BBQrSplitter

    public init(
        urMaxFragmentLength: Int = defaultURFragmentLength, urExtraParts: Int? = nil,
        urPSBTType: String = "crypto-psbt",
        bbqr: BBQrSplitter = BBQrSplitter()
    ) {
        self.urMaxFragmentLength = urMaxFragmentLength
        self.urExtraParts = urExtraParts
        self.urPSBTType = urPSBTType
        self.bbqr = bbqr
    }

    /// Returns the QR texts for `payload` in `format`; UR and BBQr texts are upper case (QR alphanumeric mode).
    ///
    /// Supported: `.ur` for PSBTs, bytes and the UR registry types; `.bbqr` for PSBTs, transactions, JSON, text and
    /// descriptors; `.base64` for PSBTs and bytes; `.hex` for transactions; `.plain` for text, descriptors, addresses,
    /// JSON. Formats without a multi-part form must fit one code.
    /// - Throws: `PayloadError.unsupportedFrameFormat`, `.doesNotFitOneCode`, `.ur`, `.bbqr`.
    public func frames(for payload: Payload, format: FrameFormat) throws(PayloadError) -> [String] {
        switch (format, payload) {
        case (.ur, _):
            let item: URRegistryItem
            switch payload {
            case .psbt(let b): item = .psbt(b)
            case .bytes(let b): item = .bytes(b)
            case .cryptoAccount(let a): item = .cryptoAccount(a)
            case .cryptoOutput(let o): item = .cryptoOutput(o)
            case .outputDescriptor(let d): item = .outputDescriptor(d)
            case .accountDescriptor(let a): item = .accountDescriptor(a)
            case .hdKey(let k): item = .hdKey(k)
            case .ethSignRequest(let q): item = .ethSignRequest(q)
            case .ethSignature(let s): item = .ethSignature(s)
            default: throw .unsupportedFrameFormat(kind: payload.kind, format: format)
            }
            do {
                let ur = try item.ur(type: payload.kind == .psbt ? urPSBTType : nil)
                return try urParts(ur)
            } catch { throw .ur(error) }
        case (.bbqr, _):
            let (bytes, type): ([UInt8], BBQr.FileType)
            switch payload {
            case .psbt(let b): (bytes, type) = (b, .psbt)
            case .transaction(let b): (bytes, type) = (b, .transaction)
            case .json(let t): (bytes, type) = (Array(t.utf8), .json)
            case .text(let t), .descriptor(let t), .chanceMultisig(let t): (bytes, type) = (Array(t.utf8), .unicodeText)
            case .bytes(let b): (bytes, type) = (b, .binary)
            default: throw .unsupportedFrameFormat(kind: payload.kind, format: format)
            }
            do { return try bbqr.split(bytes, fileType: type).parts } catch { throw .bbqr(error) }
        case (.base64, .psbt(let b)), (.base64, .bytes(let b)): return try single(TextCodec.base64String(b))
        case (.hex, .transaction(let b)), (.hex, .psbt(let b)), (.hex, .bytes(let b)):
            return try single(TextCodec.hexString(b))
        case (.plain, .text(let t)), (.plain, .descriptor(let t)), (.plain, .address(let t)), (.plain, .json(let t)),
            (.plain, .chanceMultisig(let t)):
            return try single(t)
        case (.specter, .text(let t)), (.specter, .descriptor(let t)), (.specter, .chanceMultisig(let t)):
            return SpecterMultipart.split(t, chunkLength: urMaxFragmentLength * 2)
        case (.specter, .psbt(let b)):
            return SpecterMultipart.split(TextCodec.base64String(b), chunkLength: urMaxFragmentLength * 2)
        default:
            throw .unsupportedFrameFormat(kind: payload.kind, format: format)
        }
    }

    /// Returns the UR part texts for `ur`, upper case: one string when it fits one fragment, else
    /// `seqLen + extra` fountain parts starting at sequence number 1.
    ///
    /// - Throws: `URError.invalidEncoderParameters` for a fragment length below 1 or empty CBOR.
    public func urParts(_ ur: UR) throws(URError) -> [String] {
        var encoder = try UREncoder(ur: ur, maxFragmentLength: urMaxFragmentLength)
        if encoder.isSinglePart { return [encoder.nextPart().uppercased()] }
        let count = encoder.seqLen + max(urExtraParts ?? max(2, encoder.seqLen / 2), 0)
        return (0..<count).map { _ in encoder.nextPart().uppercased() }
    }

    private func single(_ text: String) throws(PayloadError) -> [String] {
        guard text.utf8.count <= Self.singleCodeByteLimit else {
            throw .doesNotFitOneCode(characters: text.utf8.count, limit: Self.singleCodeByteLimit)
        }
        return [text]
    }
}
