/// Splits bytes into BBQr part texts that fit alphanumeric QR codes of one version.
///
/// Follows the reference's choice (coinkite/BBQr `split.py`): the fewest parts, then the lowest version within
/// `versions`; then spreads the characters evenly over that many parts (the spec asks for no small runt), each
/// non-final part a multiple of 8 characters (base32) or 2 (hex).
/// - SeeAlso: https://github.com/coinkite/BBQr/blob/master/BBQr.md
public struct BBQrSplitter: Sendable {
    /// The lowest QR version the reference considers.
    public static let defaultMinVersion = 5
    /// Airlock's default highest version (see docs/qr-formats.md): 117×117 modules, ~1,850 characters at level L.
    public static let defaultMaxVersion = 25

    /// Requested encoding (Z falls back to 2 when compression does not help).
    public var encoding: BBQr.Encoding
    /// QR versions to consider (1...40).
    public var versions: ClosedRange<Int>
    /// Error-correction level the codes will be drawn at.
    public var errorCorrection: QRCapacity.ErrorCorrection
    /// Most parts allowed (at most 1295, `ZZ` in base 36).
    public var maxParts: Int

    public init(
        encoding: BBQr.Encoding = .zlib, versions: ClosedRange<Int> = defaultMinVersion...defaultMaxVersion,
        errorCorrection: QRCapacity.ErrorCorrection = .low, maxParts: Int = 1295
    ) {
        self.encoding = encoding
        self.versions = versions
        self.errorCorrection = errorCorrection
        self.maxParts = maxParts
    }

    /// The parts and the QR version they were sized for.
    public struct Split: Equatable, Sendable {
        /// The QR version every part fits.
        public let version: Int
        /// Z falls back to base32 when compression does not shrink the data, as the reference does.
        public let encoding: BBQr.Encoding
        /// The part texts, index 0 first.
        public let parts: [String]
    }

    /// Splits `data` of `fileType`.
    ///
    /// - Throws: `BBQrError.empty`, `.cannotFit` or `.zlib`.
    public func split(_ data: [UInt8], fileType: BBQr.FileType) throws(BBQrError) -> Split {
        guard !data.isEmpty else { throw .empty }
        guard versions.lowerBound >= 1, versions.upperBound <= 40, (1...1295).contains(maxParts) else {
            throw .cannotFit("versions must be within 1...40 and maxParts within 1...1295")
        }
        var chosen = encoding
        let body: String
        switch encoding {
        case .hex: body = TextCodec.hexString(data, uppercase: true)
        case .base32: body = TextCodec.base32String(data)
        case .zlib:
            let compressed = try Deflate.compress(data)
            if compressed.count >= data.count {
                chosen = .base32
                body = TextCodec.base32String(data)
            } else {
                body = TextCodec.base32String(compressed)
            }
        }
        let length = body.utf8.count
        let modulus = chosen.splitModulus
        var best: (count: Int, version: Int, capacity: Int)?
        for version in versions {
            let capacity =
                (QRCapacity.alphanumericCharacters(version: version, level: errorCorrection) ?? 0)
                - BBQr.headerLength
            let aligned = capacity - capacity % modulus
            guard aligned > 0 else { continue }
            let count: Int
            if length <= capacity {
                count = 1
            } else {
                let need = (length + aligned - 1) / aligned
                count = (need - 1) * aligned + capacity >= length ? need : need + 1
            }
            guard count <= maxParts else { continue }
            if best == nil || count < best?.count ?? 0 { best = (count, version, aligned) }
        }
        guard let best else { throw .cannotFit("\(length) characters in \(maxParts) parts of QR versions \(versions)") }
        let chars = Array(body.utf8)
        var perPart = length
        if best.count > 1 {
            // Even split, rounded up to the modulus; never above the version's aligned capacity.
            let even = (length + best.count - 1) / best.count
            perPart = min((even + modulus - 1) / modulus * modulus, best.capacity)
        }
        let count = (length + perPart - 1) / perPart
        let parts = stride(from: 0, to: length, by: perPart).enumerated().map { index, start in
            "B$\(chosen.rawValue)\(fileType.rawValue)" + BBQr.base36(count) + BBQr.base36(index)
                + String(decoding: chars[start..<min(start + perPart, length)], as: UTF8.self)
        }
        return Split(version: best.version, encoding: chosen, parts: parts)
    }
}
