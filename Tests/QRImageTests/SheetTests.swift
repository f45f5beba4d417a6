import Testing

@testable import QRImage

/// Several codes tiled in one PNG, each captioned, all found in one read.
@Suite("QR sheets")
struct SheetTests {
    @Test("a sheet of 30 UR frames decodes completely, in reading order, from one file")
    func thirtyFrames() throws {
        var random = TestBytes(seed: 30)
        let texts = (1...30).map { random.urText(payload: 120, part: $0, of: 30) }
        let sheet = try QRSheet(codes: texts.map { try QRCode(text: $0) })
        #expect(sheet.columns == 6)
        let png = try sheet.pngData()
        let bench = try Workbench()
        try bench.write(png, to: "sheet.png")
        let found = try QRReader().read(png: png)
        #expect(found.compactMap(\.text) == texts)
    }

    @Test("codes of different sizes and binary payloads share a sheet")
    func mixedSizes() throws {
        var random = TestBytes(seed: 5)
        let payloads = [random.next(20), random.next(700), random.next(200), random.next(1_200), random.next(50)]
        let sheet = try QRSheet(codes: payloads.map { try QRCode(bytes: $0) }, columns: 2)
        let found = try QRReader().read(png: sheet.pngData())
        #expect(Set(found.map(\.bytes)) == Set(payloads))
        #expect(found.count == payloads.count)
    }

    @Test("codes keep their quiet zones: no dark pixel within the margin around any code")
    func quietZones() throws {
        let codes = try (1...4).map { try QRCode(text: "PART \($0)", version: 3) }
        let sheet = try QRSheet(codes: codes, captions: ["1/4", "2/4", "3/4", "4/4"], columns: 2)
        let image = try sheet.image(moduleSize: 4, margin: 4)
        let found = try QRReader().read(png: image.pngData())
        #expect(found.count == 4)
        for code in found {
            // The symbol is 29 modules; a quiet zone of 4 modules = 16 px must be white on each side of it.
            let box = code.bounds
            for x in max(0, box.x - 14)..<min(image.width, box.x + box.width + 14) {
                for y in [box.y - 14, box.y - 3, box.y + box.height + 2, box.y + box.height + 13]
                where y >= 0 && y < image.height {
                    #expect(image[x, y] == 255)
                }
            }
        }
    }

    @Test("captions are drawn under each code with the bitmap font")
    func captionPixels() throws {
        let code = try QRCode(text: "X", version: 1)
        let plain = try QRSheet(codes: [code], captions: [" "]).image(moduleSize: 4, margin: 4)
        let captioned = try QRSheet(codes: [code], captions: ["3/30"]).image(moduleSize: 4, margin: 4)
        #expect(plain.width == captioned.width && plain.height == captioned.height)
        let side = (21 + 8) * 4
        let captionRows = side..<captioned.height
        func dark(_ image: GrayImage) -> Int {
            captionRows.reduce(0) { sum, y in sum + (0..<image.width).filter { image[$0, y] == 0 }.count }
        }
        #expect(dark(plain) == 0)
        // "3/30": glyph pixels 3 (14) + / (5) + 3 (14) + 0 (19) = 52 font pixels, each 2×2 image pixels.
        #expect(dark(captioned) == 52 * 4)
    }

    @Test("unsupported caption characters, empty sheets and bad columns are refused")
    func refusals() throws {
        let code = try QRCode(text: "A")
        #expect(throws: QRImageError.unsupportedCaptionCharacter("€")) { try QRSheet(codes: [code], captions: ["50€"]) }
        #expect(throws: QRImageError.emptySheet) { try QRSheet(codes: []) }
        #expect(throws: QRImageError.invalidParameter(name: "columns", value: 0)) {
            try QRSheet(codes: [code], columns: 0)
        }
        #expect(throws: QRImageError.invalidParameter(name: "captions", value: 2)) {
            try QRSheet(codes: [code], captions: ["1", "2"])
        }
        #expect(try QRSheet(codes: [code], captions: ["part a-b: #1."]).captions == ["part a-b: #1."])
    }
}
