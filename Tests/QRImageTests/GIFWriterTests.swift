import Foundation
import Testing

@testable import QRImage

/// Animated GIFs written here, read by tools not written here: ImageMagick counts the frames and their delays, zbarimg
/// reads the code of every frame.
@Suite("Animated GIF output")
struct GIFWriterTests {
    @Test("every frame of a written GIF is read by zbarimg, and by this reader, in order")
    func framesReadByZbar() throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 21)
        let parts = (1...8).map { random.urText(payload: 50, part: $0, of: 8) }
        let codes = try parts.map { try QRCode(text: $0) }
        let gif = try QRCode.animatedGIF(codes, framesPerSecond: 4, moduleSize: 3)
        try bench.write(gif, to: "parts.gif")
        let identify = String(
            decoding: try bench.run("identify", ["-format", "%T %wx%h\n", "parts.gif"]), as: UTF8.self)
        let frames = identify.split(separator: "\n")
        #expect(frames.count == 8)
        #expect(frames.allSatisfy { $0.hasPrefix("25 ") })  // 4 fps: 25 hundredths of a second a frame
        let zbar = String(
            decoding: try bench.run("zbarimg", ["-q", "--raw", "-Sdisable", "-Sqrcode.enable", "parts.gif"]),
            as: UTF8.self)
        #expect(zbar.split(separator: "\n").map(String.init) == parts)
        #expect(try QRReader().read(contentsOfFile: bench.path("parts.gif")).map(\.text) == parts)
    }

    @Test("codes of different versions share one frame size, each centred")
    func mixedSizes() throws {
        let small = try QRCode(text: "A")
        let large = try QRCode(text: String(repeating: "B", count: 300))
        let gif = try QRCode.animatedGIF([small, large], framesPerSecond: 2)
        let frames = try GrayImage.gifFrames(gif, maxPixels: 10_000_000)
        #expect(frames.count == 2)
        #expect(frames[0].width == frames[1].width)
        #expect(frames[0].width == (large.size + 2 * QRCode.defaultMargin) * QRCode.defaultModuleSize)
        #expect(try QRReader().read(frames[0]).map(\.text) == ["A"])
    }

    @Test("out-of-range parameters are refused")
    func parameters() throws {
        let code = try QRCode(text: "A")
        #expect(throws: QRImageError.emptySheet) { try QRCode.animatedGIF([], framesPerSecond: 4) }
        #expect(throws: QRImageError.invalidParameter(name: "framesPerSecond", value: 0)) {
            try QRCode.animatedGIF([code], framesPerSecond: 0)
        }
        #expect(throws: QRImageError.invalidParameter(name: "moduleSize", value: 0)) {
            try QRCode.animatedGIF([code], framesPerSecond: 4, moduleSize: 0)
        }
    }
}
