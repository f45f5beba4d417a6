internal import CZBar

/// Owns one zbar image scanner set up for QR codes only, with binary payloads returned unmangled.
///
/// A scanner is not thread-safe; keep one per thread and reuse it across images (creating one is cheap, but the
/// reuse avoids repeated set-up in batch decoding).
final class ZBarScanner {
    private let scanner: OpaquePointer
    /// The scan density zbar was configured with (1 = every row and column).
    let density: Int

    /// Creates a scanner that looks at every `density`-th row and column.
    ///
    /// - Throws: `QRImageError.scannerSetupFailed` when zbar cannot create the scanner or rejects a setting.
    init(density: Int = 1) throws(QRImageError) {
        guard let scanner = zbar_image_scanner_create() else { throw .scannerSetupFailed(code: -1) }
        self.scanner = scanner
        self.density = density
        // All symbologies off, then QR on, in binary mode (no text conversion of byte segments).
        let settings: [(zbar_symbol_type_t, zbar_config_t, Int32)] = [
            (ZBAR_NONE, ZBAR_CFG_ENABLE, 0),
            (ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1),
            (ZBAR_QRCODE, ZBAR_CFG_BINARY, 1),
            (ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(density)),
            (ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density)),
        ]
        for (symbology, config, value) in settings {
            let code = zbar_image_scanner_set_config(scanner, symbology, config, value)
            guard code == 0 else { throw .scannerSetupFailed(code: code) }
        }
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Scans `image` and returns every QR code zbar finds, with bounds in `image`'s pixels.
    ///
    /// - Throws: `QRImageError.scannerSetupFailed` when zbar cannot allocate an image, `.scanFailed` on a zbar error.
    func scan(_ image: GrayImage) throws(QRImageError) -> [DecodedQRCode] {
        guard image.width > 0, image.height > 0 else { return [] }
        guard let zimage = zbar_image_create() else { throw .scannerSetupFailed(code: -1) }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, airlock_zbar_format_y800())
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        let result: Result<[DecodedQRCode], QRImageError> = image.pixels.withUnsafeBytes { raw in
            // zbar reads the caller's buffer in place (no cleanup handler); it is detached again before returning.
            zbar_image_set_data(zimage, raw.baseAddress, UInt(raw.count), nil)
            defer { zbar_image_set_data(zimage, nil, 0, nil) }
            let found = zbar_scan_image(scanner, zimage)
            guard found >= 0 else { return .failure(.scanFailed(code: found)) }
            var codes: [DecodedQRCode] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if let decoded = Self.decoded(current) { codes.append(decoded) }
                symbol = zbar_symbol_next(current)
            }
            return .success(codes)
        }
        return try result.get()
    }

    /// The payload and bounding box of one zbar symbol; `nil` for a symbol that is not a QR code.
    private static func decoded(_ symbol: OpaquePointer) -> DecodedQRCode? {
        guard zbar_symbol_get_type(symbol) == ZBAR_QRCODE else { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        var bytes: [UInt8] = []
        if length > 0, let data = zbar_symbol_get_data(symbol) {
            bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
        let points = Int(zbar_symbol_get_loc_size(symbol))
        var minX = Int.max
        var minY = Int.max
        var maxX = Int.min
        var maxY = Int.min
        for index in 0..<points {
            let x = Int(zbar_symbol_get_loc_x(symbol, UInt32(index)))
            let y = Int(zbar_symbol_get_loc_y(symbol, UInt32(index)))
            minX = min(minX, x)
            minY = min(minY, y)
            maxX = max(maxX, x)
            maxY = max(maxY, y)
        }
        let bounds =
            points > 0
            ? QRBounds(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
            : QRBounds(x: 0, y: 0, width: 0, height: 0)
        return DecodedQRCode(bytes: bytes, bounds: bounds)
    }
}
