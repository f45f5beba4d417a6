import Testing

@testable import QRImage

/// The C bindings on their own: libqrencode's matrix, libpng's simplified API, the zbar scanner configuration.
@Suite("C bindings: libqrencode, libpng, zbar")
struct CBindingTests {
    @Test("libqrencode: size is 17 + 4·version and the three finder patterns are in place", arguments: [1, 7, 25, 40])
    func finderPatterns(version: Int) throws {
        let code = try QRCode(bytes: [0x42], version: version)
        #expect(code.size == 17 + 4 * version)
        // Finder pattern row 0: 7 dark; row 1: dark, 5 light, dark (ISO/IEC 18004 section 6.3.3).
        for (originX, originY) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            #expect((0..<7).allSatisfy { code.isDark(x: originX + $0, y: originY) })
            #expect((1..<6).allSatisfy { !code.isDark(x: originX + $0, y: originY + 1) })
            #expect(code.isDark(x: originX, y: originY + 1) && code.isDark(x: originX + 6, y: originY + 1))
            #expect((2..<5).allSatisfy { code.isDark(x: originX + $0, y: originY + 3) })
        }
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: code.size, y: 0))
    }

    @Test("libpng: gray images round-trip exactly through the simplified API, bilevel and 8-bit")
    func pngRoundTrip() throws {
        var random = TestBytes(seed: 11)
        let gray = GrayImage(width: 37, height: 23, pixels: random.next(37 * 23))
        #expect(try GrayImage(png: gray.pngData(), maxPixels: 10_000) == gray)
        let bilevel = GrayImage(width: 19, height: 5, pixels: random.next(95).map { $0 < 128 ? 0 : 255 })
        let png = try bilevel.pngData()
        #expect(png[24] == 1 && png[25] == 3)  // 1-bit palette
        #expect(try GrayImage(png: png, maxPixels: 10_000) == bilevel)
    }

    @Test("zbar: the scanner finds a drawn code at density 1 and 3 and reports its corners")
    func zbarScanner() throws {
        let code = try QRCode(text: "ZBAR", version: 2)
        let image = try code.image(moduleSize: 5, margin: 4)
        for density in [1, 3] {
            let found = try ZBarScanner(density: density).scan(image)
            #expect(found.map(\.bytes) == [Array("ZBAR".utf8)])
            // The symbol spans modules 4...28 of 33: pixels 20...144.
            let bounds = try #require(found.first?.bounds)
            #expect(abs(bounds.x - 20) <= 2 && abs(bounds.y - 20) <= 2)
            #expect(abs(bounds.width - 125) <= 3 && abs(bounds.height - 125) <= 3)
        }
    }

    @Test("zbar: a blank image gives no symbols and no error")
    func zbarBlank() throws {
        #expect(try ZBarScanner().scan(GrayImage(width: 64, height: 64)).isEmpty)
        #expect(try ZBarScanner().scan(GrayImage(width: 0, height: 0, pixels: [])).isEmpty)
    }

    @Test("image filters keep sizes and flatten a gradient")
    func filters() throws {
        var image = GrayImage(width: 40, height: 30)
        for y in 0..<30 { for x in 0..<40 { image[x, y] = UInt8(100 + x * 3) } }
        image.fill(x: 10, y: 10, width: 5, height: 5, value: 20)
        #expect(image.upscaledTwice().width == 80 && image.upscaledTwice().height == 60)
        #expect(image.downscaledByHalf().width == 20 && image.downscaledByHalf().height == 15)
        let binary = image.binarized(window: 15)
        #expect(binary[12, 12] == 0)
        #expect(binary[30, 25] == 255 && binary[2, 2] == 255)
        let stretched = image.contrastStretched()
        #expect(stretched.pixels.min() == 0 && stretched.pixels.max() == 255)
    }
}
