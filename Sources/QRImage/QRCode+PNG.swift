extension QRCode {
    /// The default pixel size of one module: 6 px keeps a version-40 code under 1,200 px wide and a scaled-down
    /// (×0.5) copy still at 3 px a module, which zbar and phone cameras read.
    public static let defaultModuleSize = 6
    /// The default quiet zone in modules, the 4 that ISO/IEC 18004 requires around a QR code.
    public static let defaultMargin = 4

    /// Renders the code as a black-on-white PNG (1-bit palette) of `moduleSize` pixels a module, with `margin`
    /// modules of quiet zone on each side.
    ///
    /// - Throws: `QRImageError.invalidParameter` for a module size outside 1...64 or a margin outside 0...64,
    ///   `.pngWriteFailed` if libpng fails.
    public func pngData(moduleSize: Int = QRCode.defaultModuleSize, margin: Int = QRCode.defaultMargin)
        throws(QRImageError) -> [UInt8]
    {
        try image(moduleSize: moduleSize, margin: margin).pngData()
    }

    /// The code drawn into a gray image, `(size + 2 * margin) * moduleSize` pixels square.
    func image(moduleSize: Int, margin: Int) throws(QRImageError) -> GrayImage {
        guard (1...64).contains(moduleSize) else { throw .invalidParameter(name: "moduleSize", value: moduleSize) }
        guard (0...64).contains(margin) else { throw .invalidParameter(name: "margin", value: margin) }
        let side = (size + 2 * margin) * moduleSize
        var image = GrayImage(width: side, height: side, filledWith: 255)
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                image.fill(
                    x: (x + margin) * moduleSize, y: (y + margin) * moduleSize,
                    width: moduleSize, height: moduleSize, value: 0)
            }
        }
        return image
    }
}
