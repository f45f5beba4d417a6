/// A SeedQR drawn as SeedSigner's transcription card: the code on a grid of numbered squares, a heavier line every
/// five squares (the 5 × 5 blocks SeedSigner's "Transcribe SeedQR" screen zooms into), so it can be copied by hand
/// onto a paper template square by square.
///
/// Columns are numbered 1…N across the top and rows 1…N down the left side, outside the quiet zone; dark squares are
/// solid black, the grid lines light gray, so the card itself still scans.
/// - SeeAlso: https://github.com/SeedSigner/seedsigner/blob/dev/docs/seed_qr/README.md
public struct SeedQRCard: Sendable {
    /// The SeedQR code (version 1 to 3).
    public let code: QRCode

    /// A card for `code`.
    public init(code: QRCode) { self.code = code }

    /// The card as a PNG: `cell` pixels a square (12...64), the 4-module quiet zone inside the labels.
    ///
    /// - Throws: `QRImageError.invalidParameter` for a cell size out of range, `.pngWriteFailed`.
    public func pngData(cell: Int = 32) throws(QRImageError) -> [UInt8] {
        try image(cell: cell).pngData()
    }

    func image(cell: Int) throws(QRImageError) -> GrayImage {
        guard (12...64).contains(cell) else { throw .invalidParameter(name: "cell", value: cell) }
        let quiet = 4
        // Two-digit column numbers must fit a square's width; row numbers have the margin to themselves.
        let scale = max(1, min(cell / 12, (cell - 4) / BitmapFont.width(of: "00", scale: 1)))
        let label = BitmapFont.width(of: "\(code.size)", scale: scale) + 2 * cell / 3
        let origin = label + quiet * cell  // the top-left corner of module (0, 0)
        let side = origin + (code.size + quiet) * cell
        var image = GrayImage(width: side, height: side, filledWith: 255)
        // Grid: thin lines around every square, heavier ones every five squares and on the outer edge.
        for i in 0...code.size {
            let heavy = i % 5 == 0 || i == code.size
            let thickness = heavy ? max(2, cell / 8) : 1
            let value: UInt8 = heavy ? 110 : 185
            let at = origin + i * cell - thickness / 2
            image.fill(x: at, y: origin, width: thickness, height: code.size * cell, value: value)
            image.fill(x: origin, y: at, width: code.size * cell, height: thickness, value: value)
        }
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) {
                image.fill(x: origin + x * cell, y: origin + y * cell, width: cell, height: cell, value: 0)
            }
        }
        // Numbers: columns above the quiet zone, rows left of it.
        let glyphHeight = BitmapFont.glyphHeight * scale
        for i in 0..<code.size {
            let text = "\(i + 1)"
            let width = BitmapFont.width(of: text, scale: scale)
            let center = origin + i * cell + cell / 2
            BitmapFont.draw(text, into: &image, x: center - width / 2, y: label / 2 - glyphHeight / 2, scale: scale)
            BitmapFont.draw(
                text, into: &image, x: label - cell / 3 - width, y: center - glyphHeight / 2, scale: scale)
        }
        return image
    }
}
