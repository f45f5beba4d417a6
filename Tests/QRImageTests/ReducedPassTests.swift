import Testing

@testable import QRImage

/// The reduced first pass (issue 19): an image whose smallest recurring run is 6 px or more is scanned shrunk by an
/// integer factor first, and at full size when that finds nothing.
@Suite("QR reduced first pass")
struct ReducedPassTests {
    static func urCode(seed: UInt64, payload: Int = 400) throws -> (text: String, code: QRCode) {
        var random = TestBytes(seed: seed)
        let text = random.urText(payload: payload)
        return (text, try QRCode(text: text))
    }

    @Test("the smallest recurring run of a rendered code is its module size", arguments: [3, 4, 6, 9])
    func moduleEstimate(moduleSize: Int) throws {
        let image = try Self.urCode(seed: 1).code.image(moduleSize: moduleSize, margin: 4)
        #expect(image.smallestRecurringRun() == moduleSize)
    }

    @Test("a frame with 6 px modules is read from the image reduced by 2, with bounds in the original's pixels")
    func reducedFrame() throws {
        let (text, code) = try Self.urCode(seed: 2)
        let image = try code.image(moduleSize: 6, margin: 4)
        #expect(QRReader.reductionFactor(for: image) == 2)
        // The reduced image alone holds the code (so the pass, not the fallback, read it).
        let reducedOnly = try ZBarScanner(density: 2).scan(image.reduced(by: 2))
        #expect(reducedOnly.compactMap(\.text) == [text])
        let found = try QRReader().read(image)
        #expect(found.compactMap(\.text) == [text])
        // The symbol starts after the 4-module quiet zone (24 px) and spans size × 6 px.
        let bounds = try #require(found.first?.bounds)
        #expect(abs(bounds.x - 24) <= 3 && abs(bounds.y - 24) <= 3)
        #expect(abs(bounds.width - code.size * 6) <= 6 && abs(bounds.height - code.size * 6) <= 6)
    }

    @Test("small modules are not reduced, and a blank image shows no structure")
    func notReduced() throws {
        let image = try Self.urCode(seed: 3).code.image(moduleSize: 3, margin: 4)
        #expect(QRReader.reductionFactor(for: image) == nil)
        #expect(image.smallestRecurringRun() == 3)
        // A blank image shows no structure at all.
        #expect(GrayImage(width: 300, height: 300, filledWith: 255).smallestRecurringRun() == nil)
    }

    @Test("when the reduced pass finds nothing, the full-size passes still read the code")
    func fallback() throws {
        let (text, code) = try Self.urCode(seed: 4)
        let image = try code.image(moduleSize: 3, margin: 4)
        // Attack on the shortcut: forced to shrink 3 px modules by 8, the reduced pass cannot read anything...
        #expect(try ZBarScanner(density: 2).scan(image.reduced(by: 8)).isEmpty)
        // ...and the read falls back to full size instead of reporting no code.
        #expect(try QRReader().read(image, reduction: 8).compactMap(\.text) == [text])
        // Control: without a reduction, the same read.
        #expect(try QRReader().read(image, reduction: nil).compactMap(\.text) == [text])
    }

    static func canvas(_ images: [GrayImage]) -> GrayImage {
        var canvas = GrayImage(
            width: images.map(\.width).reduce(0, +), height: images.map(\.height).max() ?? 0, filledWith: 255)
        var x = 0
        for image in images {
            canvas.draw(image, x: x, y: 0)
            x += image.width
        }
        return canvas
    }

    @Test("codes with 6 px and 4 px modules on one image are all found (the small modules keep it full size)")
    func mixedModuleSizes() throws {
        let big = try Self.urCode(seed: 5)
        let small = try Self.urCode(seed: 6, payload: 120)
        let canvas = Self.canvas([
            try big.code.image(moduleSize: 6, margin: 4), try small.code.image(moduleSize: 4, margin: 4),
        ])
        #expect(QRReader.reductionFactor(for: canvas) == nil)
        let found = try QRReader().read(png: canvas.pngData())
        #expect(Set(found.compactMap(\.text)) == [big.text, small.text])
    }

    @Test("codes with 6 px and 9 px modules on one image are both read from the reduced image")
    func mixedLargeModules() throws {
        let first = try Self.urCode(seed: 8)
        let second = try Self.urCode(seed: 9, payload: 120)
        let canvas = Self.canvas([
            try first.code.image(moduleSize: 6, margin: 4), try second.code.image(moduleSize: 9, margin: 4),
        ])
        #expect(QRReader.reductionFactor(for: canvas) == 2)
        let reducedOnly = try ZBarScanner(density: 2).scan(canvas.reduced(by: 2))
        #expect(Set(reducedOnly.compactMap(\.text)) == [first.text, second.text])
        let found = try QRReader().read(png: canvas.pngData())
        #expect(found.compactMap(\.text) == [first.text, second.text])
    }

    @Test("reducing by 2 an image with even sides gives the general reduction's pixels")
    func reductionByTwo() {
        var random = TestBytes(seed: 7)
        let image = GrayImage(width: 36, height: 20, pixels: random.next(36 * 20))
        let fast = image.reduced(by: 2)
        #expect(fast.width == 18 && fast.height == 10)
        // The general path (odd width) on the same pixels plus one column: the first 18 columns must agree.
        var wider = GrayImage(width: 37, height: 20, filledWith: 0)
        wider.draw(image, x: 0, y: 0)
        let general = wider.reduced(by: 2)
        for y in 0..<10 {
            for x in 0..<18 { #expect(fast[x, y] == general[x, y]) }
        }
        let expected = (Int(image[0, 0]) + Int(image[1, 0]) + Int(image[0, 1]) + Int(image[1, 1]) + 2) / 4
        #expect(Int(fast[0, 0]) == expected)
    }

    @Test("reducing averages each block and clips the last row and column of blocks")
    func reduction() {
        var image = GrayImage(width: 5, height: 3, filledWith: 255)
        image.fill(x: 0, y: 0, width: 2, height: 2, value: 0)
        image.fill(x: 4, y: 2, width: 1, height: 1, value: 0)
        let reduced = image.reduced(by: 2)
        #expect(reduced.width == 3 && reduced.height == 2)
        #expect(reduced[0, 0] == 0)
        #expect(reduced[1, 0] == 255)
        #expect(reduced[2, 0] == 255)
        #expect(reduced[2, 1] == 0)
        #expect(reduced[0, 1] == 255)
    }
}
