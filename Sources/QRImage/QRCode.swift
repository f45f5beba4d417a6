internal import CQREncode

/// A QR code symbol: its square grid of dark and light modules, encoded by libqrencode.
///
/// Binary payloads are encoded in 8-bit byte mode (`QRcode_encodeData`). Text is split by libqrencode into numeric,
/// alphanumeric and 8-bit segments (`QRcode_encodeString`), so upper-case BC-UR text gets the dense alphanumeric mode.
/// The symbol has no quiet zone; renderers add it.
///
/// - SeeAlso: ISO/IEC 18004:2015
public struct QRCode: Sendable, Hashable {
    /// The default error-correction level, `.low`: the most capacity and the least dense symbol for a payload.
    public static let defaultErrorCorrection = QRErrorCorrection.low
    /// The largest binary payload one code holds at the default level (version 40-L, 8-bit mode).
    public static let maxBinaryCount = 2953

    /// The QR version (1...40); the symbol is `17 + 4 * version` modules wide.
    public let version: Int
    /// The error-correction level of the symbol.
    public let errorCorrection: QRErrorCorrection
    /// The number of modules on each side, without quiet zone.
    public let size: Int
    /// The modules row by row, `true` for dark.
    private let modules: [Bool]

    /// Encodes `bytes` in 8-bit byte mode.
    ///
    /// - Parameters:
    ///   - bytes: the payload, 1 to 2953 bytes (fewer at higher error-correction levels).
    ///   - errorCorrection: the error-correction level.
    ///   - version: a forced version (1...40), or `nil` for the smallest version the payload fits.
    /// - Throws: `QRImageError.payloadTooLarge` when the payload does not fit (in the forced version),
    ///   `.invalidVersion`, `.emptyInput` for no bytes, `.encoderFailed` for any other libqrencode failure.
    public init(
        bytes: [UInt8],
        errorCorrection: QRErrorCorrection = QRCode.defaultErrorCorrection,
        version: Int? = nil
    ) throws(QRImageError) {
        guard !bytes.isEmpty else { throw .emptyInput }
        let requested = try Self.checkedVersion(version)
        guard bytes.count <= Int(Int32.max) else {
            throw .payloadTooLarge(byteCount: bytes.count, errorCorrection: errorCorrection, version: version)
        }
        airlock_qrencode_clear_errno()
        let code = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, requested, errorCorrection.qrecLevel)
        }
        try self.init(code, byteCount: bytes.count, errorCorrection: errorCorrection, version: version)
    }

    /// Encodes `text` (UTF-8), letting libqrencode choose numeric, alphanumeric or 8-bit mode for each run.
    ///
    /// Case is kept. Decoding the code gives back the UTF-8 bytes of `text`.
    ///
    /// - Throws: `QRImageError.textContainsNUL`, `.payloadTooLarge`, `.invalidVersion`, `.emptyInput` for empty
    ///   text, `.encoderFailed` for any other libqrencode failure.
    public init(
        text: String,
        errorCorrection: QRErrorCorrection = QRCode.defaultErrorCorrection,
        version: Int? = nil
    ) throws(QRImageError) {
        guard !text.isEmpty else { throw .emptyInput }
        guard !text.utf8.contains(0) else { throw .textContainsNUL }
        let requested = try Self.checkedVersion(version)
        airlock_qrencode_clear_errno()
        let code = QRcode_encodeString(text, requested, errorCorrection.qrecLevel, QR_MODE_8, 1)
        try self.init(code, byteCount: text.utf8.count, errorCorrection: errorCorrection, version: version)
    }

    /// Takes ownership of a libqrencode result, checking it and the forced version.
    private init(
        _ code: UnsafeMutablePointer<QRcode>?,
        byteCount: Int,
        errorCorrection: QRErrorCorrection,
        version: Int?
    ) throws(QRImageError) {
        guard let code else {
            let error = airlock_qrencode_errno()
            if error == ERANGE {
                throw .payloadTooLarge(byteCount: byteCount, errorCorrection: errorCorrection, version: version)
            }
            throw .encoderFailed(errno: error)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let actualVersion = Int(code.pointee.version)
        // libqrencode grows the version when the data does not fit the requested one; a forced version is exact.
        if let version, actualVersion != version {
            throw .payloadTooLarge(byteCount: byteCount, errorCorrection: errorCorrection, version: version)
        }
        guard width == 17 + 4 * actualVersion, let data = code.pointee.data else {
            throw .encoderFailed(errno: 0)
        }
        self.version = actualVersion
        self.errorCorrection = errorCorrection
        self.size = width
        self.modules = (0..<(width * width)).map { data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark; outside the symbol (the quiet zone) is light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    private static func checkedVersion(_ version: Int?) throws(QRImageError) -> Int32 {
        guard let version else { return 0 }
        guard (1...40).contains(version) else { throw .invalidVersion(version) }
        return Int32(version)
    }
}
