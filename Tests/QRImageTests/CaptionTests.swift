import Testing

@testable import QRImage

/// Frame captions (DESIGN section 11): text under the code that leaves the code readable.
@Suite("Frame captions")
struct CaptionTests {
    @Test("a captioned frame decodes as the plain code does, and its caption is drawn below the quiet zone")
    func captionedFrameDecodes() throws {
        let text = "UR:CRYPTO-PSBT/2-3/LPAOAXCFAXHLCYYNBTFWKGHDFMCSSTRAPDTBSTMSNDKBDOLDYL"
        let code = try QRCode(text: text)
        let caption = ["Airlock · PSBT request 1a2b3c4d · 2 of 3"]
        let image = try code.captionedImage(caption, moduleSize: 6, margin: 4)
        let plain = try code.image(moduleSize: 6, margin: 4)
        #expect(image.height > plain.height)
        let found = try QRReader().read(png: image.pngData())
        #expect(found.compactMap(\.text) == [text])
        // Every dark pixel below the code's square is the caption's: none within the bottom quiet zone.
        let quietBottom = plain.height - 4 * 6
        var darkInQuietZone = 0
        var darkInCaption = 0
        for y in quietBottom..<image.height {
            for x in 0..<image.width where image.pixels[y * image.width + x] == 0 {
                if y < plain.height { darkInQuietZone += 1 } else { darkInCaption += 1 }
            }
        }
        #expect(darkInQuietZone == 0)
        #expect(darkInCaption > 0)
    }

    @Test("the first line widens the image rather than wrap; detail lines wrap to its width")
    func wrapping() throws {
        let code = try QRCode(text: "bitcoin:bcrt1q")
        let header = "Airlock · invoice"
        let address = "bcrt 1qxy 2kgd ygjr sqtz q2n0 yrf2 493p 83kk fjhx 0wlh"
        let image = try code.captionedImage([header, address], moduleSize: 6, margin: 4)
        let scale = QRCode.captionScale(moduleSize: 6)
        #expect(image.width >= BitmapFont.width(of: header, scale: scale))
        let lines = BitmapFont.wrap(address, width: image.width - 2 * BitmapFont.advance * scale, scale: scale)
        #expect(lines.count > 1)
        #expect(lines.joined(separator: " ") == address)
        #expect(lines.allSatisfy { BitmapFont.width(of: $0, scale: scale) <= image.width })
    }

    @Test("characters the font lacks become ?, lower case and the middle dot are drawn as themselves")
    func glyphs() {
        #expect(QRCode.drawableCaption("Airlock · eth request 0a1b") == "Airlock · eth request 0a1b")
        #expect(QRCode.drawableCaption("50€ ✓") == "50? ?")
        #expect(BitmapFont.glyph(for: "a") != BitmapFont.glyph(for: "A"))
        #expect(BitmapFont.glyph(for: "·") != nil)
    }
}
