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
}
