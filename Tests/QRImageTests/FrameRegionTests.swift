import Testing

@testable import QRImage

/// Video frames (issue 33 item 2): a large frame is scanned first in crops around its busy regions (the texture of a
/// code's modules), and in full when those find nothing.
@Suite("QR frame regions")
struct FrameRegionTests {
    /// A 1280×720 frame: a gray gradient with sensor-like noise, and `codes` drawn at their origins.
    static func frame(_ codes: [(image: GrayImage, x: Int, y: Int)], noiseSeed: UInt64 = 9) -> GrayImage {
        var frame = GrayImage(width: 1280, height: 720, filledWith: 0)
        var noise = TestBytes(seed: noiseSeed)
        let jitter = noise.next(frame.pixels.count)
        for y in 0..<720 {
            for x in 0..<1280 {
                // 70...120 across the frame, plus noise of -6...+6 levels.
                frame[x, y] = UInt8(70 + 50 * x / 1280 + Int(jitter[y * 1280 + x]) % 13 - 6)
            }
        }
        for (image, x, y) in codes { frame.draw(image, x: x, y: y) }
        return frame
    }

    static func code(seed: UInt64, payload: Int = 400) throws -> (text: String, image: GrayImage) {
        var random = TestBytes(seed: seed)
        let text = random.urText(payload: payload)
        return (text, try QRCode(text: text).image(moduleSize: 4, margin: 4))
    }

    @Test("the busy region of a frame holds its code, and the crop alone reads it")
    func regionHoldsTheCode() throws {
        let (text, image) = try Self.code(seed: 1)
        let frame = Self.frame([(image, 500, 150)])
        let regions = frame.busyRegions()
        let region = try #require(regions.first)
        // The code's modules start after the 16 px quiet zone.
        let symbol = QRBounds(x: 516, y: 166, width: image.width - 32, height: image.height - 32)
        #expect(region.x <= symbol.x && region.y <= symbol.y)
        #expect(
            region.x + region.width >= symbol.x + symbol.width && region.y + region.height >= symbol.y + symbol.height)
        #expect(region.width * region.height * 3 < frame.width * frame.height)
        #expect(try ZBarScanner(density: 3).scan(frame.cropped(to: region)).compactMap(\.text) == [text])
        // Through the reader, with bounds in the frame's pixels.
        let found = try QRReader().read(gray: frame.pixels, width: 1280, height: 720, busyRegionsFirst: true)
        #expect(found.compactMap(\.text) == [text])
        let bounds = try #require(found.first?.bounds)
        #expect(abs(bounds.x - symbol.x) <= 4 && abs(bounds.y - symbol.y) <= 4)
    }

    @Test("two codes in one frame are both read")
    func twoCodes() throws {
        let left = try Self.code(seed: 2)
        let right = try Self.code(seed: 3, payload: 200)
        let frame = Self.frame([(left.image, 40, 40), (right.image, 800, 300)])
        #expect(frame.busyRegions().count >= 2)
        let found = try QRReader().read(gray: frame.pixels, width: 1280, height: 720, busyRegionsFirst: true)
        #expect(Set(found.compactMap(\.text)) == [left.text, right.text])
    }

    @Test("a frame without a code has no busy region and reads as no code")
    func emptyFrame() throws {
        let frame = Self.frame([])
        #expect(frame.busyRegions().isEmpty)
        #expect(throws: QRImageError.noCodeFound(width: 1280, height: 720)) {
            try QRReader().read(gray: frame.pixels, width: 1280, height: 720, busyRegionsFirst: true)
        }
    }

    /// A square of random 4 px black and white cells: busy like a code, but holding none.
    static func texture(side: Int, seed: UInt64) -> GrayImage {
        var random = TestBytes(seed: seed)
        let cells = random.next((side / 4) * (side / 4))
        var image = GrayImage(width: side, height: side, filledWith: 255)
        for (index, cell) in cells.enumerated() where cell & 1 == 1 {
            image.fill(x: index % (side / 4) * 4, y: index / (side / 4) * 4, width: 4, height: 4, value: 0)
        }
        return image
    }

    @Test("a phone's outline and its text lines make no region, and a code near the screen's edge gets its own")
    func outlineAndText() throws {
        var frame = Self.frame([])
        // A dark bezel, a white screen 20 px wider than the code on each side, text lines above and below.
        frame.fill(x: 420, y: 0, width: 440, height: 720, value: 25)
        frame.fill(x: 432, y: 10, width: 416, height: 700, value: 228)
        for (line, y) in [(0, 60), (1, 560), (2, 585)] {
            var x = 460
            while x < 800 {
                let length = 20 + (line * 7 + x) % 30
                frame.fill(x: x, y: y, width: length, height: 12, value: 70)
                x += length + 8
            }
        }
        #expect(frame.busyRegions().isEmpty)
        let (text, image) = try Self.code(seed: 4)
        frame.draw(image, x: 452 - 16, y: 150)
        let region = try #require(frame.busyRegions().first)
        // The code's symbol plus at most about two blocks a side: not the screen, not the text.
        #expect(region.width <= image.width - 32 + 6 * 16 && region.height <= image.height - 32 + 6 * 16)
        #expect(region.y > 60 + 12 && region.y + region.height < 560)
        #expect(try QRReader().readBusyRegions(frame)?.compactMap(\.text) == [text])
    }

    @Test("a code in a corner of the frame, a small code and a large code are read from their crops")
    func cornerSmallLarge() throws {
        let corner = try Self.code(seed: 5)
        let small = try QRCode(text: corner.text).image(moduleSize: 2, margin: 4)
        let large = try QRCode(text: corner.text).image(moduleSize: 6, margin: 4)
        for (image, x, y) in [
            (corner.image, 0, 0), (corner.image, 1280 - corner.image.width, 720 - corner.image.height),
            (small, 700, 300), (large, 300, 80),
        ] {
            let frame = Self.frame([(image, x, y)])
            #expect(try QRReader().readBusyRegions(frame)?.compactMap(\.text) == [corner.text], "at \(x), \(y)")
            let found = try QRReader().read(gray: frame.pixels, width: 1280, height: 720)
            #expect(found.compactMap(\.text) == [corner.text])
        }
    }

    @Test("a code beside a busy texture that holds none is read from its own crop")
    func codeBesideTexture() throws {
        let (text, image) = try Self.code(seed: 6)
        let frame = Self.frame([(Self.texture(side: 240, seed: 7), 60, 200), (image, 700, 150)])
        #expect(frame.busyRegions().count >= 2)
        #expect(try QRReader().readBusyRegions(frame)?.compactMap(\.text) == [text])
    }

    @Test("a code the crops miss is still read by the whole-frame passes (control: the busy region path finds none)")
    func wholeFrameFallback() throws {
        let (text, image) = try Self.code(seed: 8, payload: 100)
        // A code touching a large texture that holds none: their one cluster is larger than half the frame.
        let merged = Self.frame([(Self.texture(side: 600, seed: 9), 0, 60), (image, 596, 150)])
        // A code larger than half the frame (its region, if any, is not cropped).
        let qr = try QRCode(text: text)
        let huge = Self.frame([(try qr.image(moduleSize: 716 / (qr.size + 4), margin: 2), 300, 0)])
        for (name, frame) in [("merged", merged), ("huge", huge)] {
            #expect(try QRReader().readBusyRegions(frame) == nil, "\(name)")
            let found = try? QRReader().read(gray: frame.pixels, width: 1280, height: 720)
            #expect(found?.compactMap(\.text) == [text], "\(name)")
        }
    }
}
