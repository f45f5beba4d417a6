import Testing

@testable import QRImage

/// Every PNG color type and bit depth (PNG spec section 11.2.2) reads to the same code; files made by ImageMagick.
@Suite("PNG color types and bit depths")
struct PNGFormatTests {
    /// ImageMagick output specifiers and options, by the PNG layout they produce.
    static let formats: [(name: String, arguments: [String], output: String, colorType: UInt8, bitDepth: UInt8)] = [
        (
            "gray 8-bit", ["-colorspace", "Gray", "-define", "png:color-type=0", "-define", "png:bit-depth=8"],
            "out.png", 0, 8
        ),
        (
            "gray 1-bit", ["-colorspace", "Gray", "-define", "png:color-type=0", "-define", "png:bit-depth=1"],
            "out.png", 0, 1
        ),
        (
            "gray 16-bit", ["-colorspace", "Gray", "-define", "png:color-type=0", "-depth", "16"], "PNG48:out.png", 0,
            16
        ),
        ("gray+alpha", ["-alpha", "on", "-colorspace", "Gray", "-define", "png:color-type=4"], "out.png", 4, 8),
        ("RGB 8-bit", ["-define", "png:color-type=2"], "PNG24:out.png", 2, 8),
        ("RGB 16-bit", ["-define", "png:color-type=2", "-depth", "16"], "PNG48:out.png", 2, 16),
        ("RGBA 8-bit", ["-alpha", "on", "-define", "png:color-type=6"], "PNG32:out.png", 6, 8),
        ("RGBA 16-bit", ["-alpha", "on", "-define", "png:color-type=6", "-depth", "16"], "PNG64:out.png", 6, 16),
        ("palette", ["-fill", "red", "-draw", "point 0,0", "-define", "png:color-type=3"], "PNG8:out.png", 3, 8),
        ("interlaced (Adam7)", ["-interlace", "PNG"], "PNG24:out.png", 2, 8),
    ]

    @Test("reads", arguments: formats.map(\.name))
    func reads(format: String) throws {
        guard let spec = Self.formats.first(where: { $0.name == format }) else {
            Issue.record("unknown format \(format)")
            return
        }
        let payload = Array("PNG FORMAT \(format.uppercased())".utf8)
        let bench = try Workbench()
        try bench.write(try QRCode(bytes: payload).pngData(moduleSize: 4), to: "in.png")
        try bench.convert(["in.png"] + spec.arguments + [spec.output])
        let png = try bench.read("out.png")
        // IHDR: bytes 24 and 25 are bit depth and color type; check ImageMagick made the layout under test.
        #expect(png.count > 28)
        #expect(png[25] == spec.colorType)
        if spec.colorType != 3 { #expect(png[24] == spec.bitDepth) }
        if format.hasPrefix("interlaced") { #expect(png[28] == 1) }
        #expect(try QRReader().read(png: png).map(\.bytes) == [payload])
    }

    @Test("transparent pixels are composited onto white")
    func transparentBackground() throws {
        let bench = try Workbench()
        try bench.write(try QRCode(text: "TRANSPARENT").pngData(), to: "in.png")
        try bench.convert(["in.png", "-transparent", "white", "PNG32:out.png"])
        let image = try GrayImage(png: bench.read("out.png"), maxPixels: 1 << 24)
        #expect(image[0, 0] == 255)
        #expect(try QRReader().read(contentsOfFile: bench.path("out.png")).map(\.text) == ["TRANSPARENT"])
    }

    @Test("a palette file reads to the same gray as the same picture stored as RGB (palette entries mapped once)")
    func paletteGrayMatchesRGB() throws {
        let bench = try Workbench()
        try bench.write(try QRCode(text: "PALETTE GRAY").pngData(moduleSize: 4), to: "in.png")
        // Colored marks, so the palette holds more than black and white.
        let marks = ["-fill", "red", "-draw", "rectangle 0,0 9,9", "-fill", "#3060C0", "-draw", "rectangle 10,0 19,9"]
        try bench.convert(["in.png"] + marks + ["-define", "png:color-type=3", "PNG8:palette.png"])
        try bench.convert(["in.png"] + marks + ["-define", "png:color-type=2", "PNG24:rgb.png"])
        #expect(try bench.read("palette.png")[25] == 3)
        let paletted = try GrayImage(png: bench.read("palette.png"), maxPixels: 1 << 24)
        let direct = try GrayImage(png: bench.read("rgb.png"), maxPixels: 1 << 24)
        #expect(paletted.width == direct.width && paletted.height == direct.height)
        let worst = zip(paletted.pixels, direct.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1)
        // The marks are neither black nor white: the colormap really was converted to gray.
        #expect(paletted[2, 2] != 0 && paletted[2, 2] != 255)
        #expect(paletted[12, 2] != 0 && paletted[12, 2] != 255 && paletted[12, 2] != paletted[2, 2])
    }

    @Test("a palette file's transparent entry is composited onto white")
    func transparentPalette() throws {
        let bench = try Workbench()
        try bench.write(try QRCode(text: "PALETTE TRANSPARENT").pngData(), to: "in.png")
        try bench.convert(["in.png", "-transparent", "white", "-define", "png:color-type=3", "PNG8:out.png"])
        let png = try bench.read("out.png")
        #expect(png[25] == 3)
        #expect(png.count > 40 && String(decoding: png, as: UTF8.self).contains("tRNS"))
        let image = try GrayImage(png: png, maxPixels: 1 << 24)
        #expect(image[0, 0] == 255)
        #expect(try QRReader().read(png: png).map(\.text) == ["PALETTE TRANSPARENT"])
    }

    @Test("our renderer writes a 1-bit palette PNG")
    func ourFormat() throws {
        let png = try QRCode(text: "A").pngData()
        #expect(Array(png.prefix(8)) == GrayImage.pngSignature)
        #expect(png[24] == 1)
        #expect(png[25] == 3)
    }
}
