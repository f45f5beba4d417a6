/// Several QR codes tiled in one image in a grid, each with a caption under it (for example the parts of a
/// multi-part payload, captioned "3/30"), so that one photo or one file carries them all.
///
/// Every code keeps its full quiet zone, so neighbours are at least two quiet zones apart and captions sit outside
/// them; zbar finds all codes of a sheet in one pass.
public struct QRSheet: Sendable {
    /// The codes, in reading order.
    public let codes: [QRCode]
    /// One caption per code.
    public let captions: [String]
    /// The number of codes per row.
    public let columns: Int

    /// Creates a sheet.
    ///
    /// - Parameters:
    ///   - codes: at least one code, laid out row by row.
    ///   - captions: one caption per code, drawn with the built-in font (digits, letters, space, `/ - . : #`);
    ///     `nil` numbers the codes "1/N" … "N/N".
    ///   - columns: codes per row; `nil` for a near-square grid (`ceil(sqrt(count))`).
    /// - Throws: `QRImageError.emptySheet`, `.invalidParameter` for a caption count that does not match or
    ///   columns < 1, `.unsupportedCaptionCharacter`.
    public init(codes: [QRCode], captions: [String]? = nil, columns: Int? = nil) throws(QRImageError) {
        guard !codes.isEmpty else { throw .emptySheet }
        let captions = captions ?? codes.indices.map { "\($0 + 1)/\(codes.count)" }
        guard captions.count == codes.count else { throw .invalidParameter(name: "captions", value: captions.count) }
        for caption in captions { try BitmapFont.validate(caption) }
        var grid = 1
        if let columns {
            guard columns >= 1 else { throw .invalidParameter(name: "columns", value: columns) }
            grid = columns
        } else {
            // Near-square default: the smallest column count whose square holds every code.
            while grid * grid < codes.count { grid += 1 }
        }
        self.codes = codes
        self.captions = captions
        self.columns = min(grid, codes.count)
    }

    /// Renders the sheet as a black-on-white PNG.
    ///
    /// Each cell is as wide as the widest code (or caption) and holds the code with `margin` modules of quiet zone,
    /// then its caption centered below, drawn at `max(2, moduleSize / 2)` pixels per font pixel.
    ///
    /// - Throws: `QRImageError.invalidParameter` for a module size outside 1...64, a margin outside 1...64 or a
    ///   sheet over 100 megapixels, `.pngWriteFailed` if libpng fails.
    public func pngData(moduleSize: Int = QRCode.defaultModuleSize, margin: Int = QRCode.defaultMargin)
        throws(QRImageError) -> [UInt8]
    {
        try image(moduleSize: moduleSize, margin: margin).pngData()
    }

    /// The sheet drawn into a gray image.
    func image(moduleSize: Int, margin: Int) throws(QRImageError) -> GrayImage {
        guard (1...64).contains(margin) else { throw .invalidParameter(name: "margin", value: margin) }
        var tiles: [GrayImage] = []
        for code in codes { tiles.append(try code.image(moduleSize: moduleSize, margin: margin)) }
        let scale = max(2, moduleSize / 2)
        let captionWidth = captions.map { BitmapFont.width(of: $0, scale: scale) }.max() ?? 0
        let tileSide = tiles.map(\.width).max() ?? 0
        // A caption wider than its code keeps a blank glyph each side, so neighbours' captions never touch.
        let cellWidth = max(tileSide, captionWidth + 2 * BitmapFont.advance * scale)
        // Caption: glyph height plus one glyph-pixel gap below it, under the code's quiet zone.
        let captionHeight = (BitmapFont.glyphHeight + 2) * scale
        let cellHeight = tileSide + captionHeight
        let rows = (codes.count + columns - 1) / columns
        let width = columns * cellWidth
        let height = rows * cellHeight
        guard width * height <= 100_000_000 else {
            throw .invalidParameter(name: "sheet pixels", value: width * height)
        }
        var sheet = GrayImage(width: width, height: height, filledWith: 255)
        for (index, tile) in tiles.enumerated() {
            let left = (index % columns) * cellWidth
            let top = (index / columns) * cellHeight
            sheet.draw(tile, x: left + (cellWidth - tile.width) / 2, y: top + (tileSide - tile.height) / 2)
            let caption = captions[index]
            let captionLeft = left + (cellWidth - BitmapFont.width(of: caption, scale: scale)) / 2
            BitmapFont.draw(caption, into: &sheet, x: captionLeft, y: top + tileSide, scale: scale)
        }
        return sheet
    }
}
