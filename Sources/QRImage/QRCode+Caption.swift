extension QRCode {
    /// Renders the code as a PNG with lines of text under it, so a frame shown on a screen or printed says what it
    /// is and which part it is ("Airlock · PSBT request 1a2b3c4d · 2 of 14").
    ///
    /// The first line is never wrapped (the image widens to hold it); later lines are cut at spaces to the image's
    /// width. Characters the built-in font cannot draw are drawn as `?`. The text sits below the code's quiet zone,
    /// so the code reads as an uncaptioned one does.
    ///
    /// - Parameters:
    ///   - caption: the lines, first line first; empty draws the plain code.
    ///   - moduleSize: pixels a module (1...64).
    ///   - margin: quiet zone in modules (1...64).
    /// - Returns: the PNG bytes.
    /// - Throws: `QRImageError.invalidParameter` for a module size or margin out of range, `.pngWriteFailed`.
    public func pngData(
        caption: [String], moduleSize: Int = QRCode.defaultModuleSize, margin: Int = QRCode.defaultMargin
    ) throws(QRImageError) -> [UInt8] {
        try captionedImage(caption, moduleSize: moduleSize, margin: margin).pngData()
    }

    /// The font scale of captions for `moduleSize`: two image pixels a font pixel from the default module size down,
    /// more for larger modules.
    static func captionScale(moduleSize: Int) -> Int { max(2, moduleSize / 3) }

    /// `caption` with every character the font lacks replaced by `?`.
    public static func drawableCaption(_ caption: String) -> String {
        String(caption.map { BitmapFont.glyph(for: $0) == nil ? "?" : $0 })
    }

    /// The code and its caption drawn into a gray image.
    func captionedImage(_ caption: [String], moduleSize: Int, margin: Int) throws(QRImageError) -> GrayImage {
        guard (1...64).contains(margin) else { throw .invalidParameter(name: "margin", value: margin) }
        let tile = try image(moduleSize: moduleSize, margin: margin)
        let lines = caption.map(Self.drawableCaption)
        guard let first = lines.first else { return tile }
        let scale = Self.captionScale(moduleSize: moduleSize)
        let side = 2 * BitmapFont.advance * scale  // a blank glyph pair each side of a line
        let width = max(tile.width, BitmapFont.width(of: first, scale: scale) + side)
        var wrapped = [first]
        for line in lines.dropFirst() { wrapped += BitmapFont.wrap(line, width: width - side, scale: scale) }
        let lineHeight = (BitmapFont.glyphHeight + 4) * scale
        // The code's own quiet zone is the gap above the text; one line's worth of white below it.
        let height = tile.height + wrapped.count * lineHeight + lineHeight / 2
        var image = GrayImage(width: width, height: height, filledWith: 255)
        image.draw(tile, x: (width - tile.width) / 2, y: 0)
        for (index, line) in wrapped.enumerated() {
            let left = (width - BitmapFont.width(of: line, scale: scale)) / 2
            BitmapFont.draw(line, into: &image, x: left, y: tile.height + index * lineHeight, scale: scale)
        }
        return image
    }
}
