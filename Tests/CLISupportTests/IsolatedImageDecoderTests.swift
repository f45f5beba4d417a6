import Foundation
import QRImage
import Testing

@testable import CLISupport

/// Image decoding in a child process (docs/architecture.md section 5): the answer protocol, and the real child (the built
/// airlock-signer in its hidden decode mode, under the decoder's seccomp filter).
@Suite("IsolatedImageDecoder")
struct IsolatedImageDecoderTests {
    /// The built `airlock-signer`, in the build directory above this test bundle.
    static func signerBinary() throws -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<5 {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("airlock-signer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
        }
        struct NotBuilt: Error {}
        throw NotBuilt()
    }

    @Test("answers round-trip through the wire encoding; malformed ones are refused")
    func protocolRoundTrip() {
        let answers: [IsolatedImageDecoder.Answer] = [
            .codes([Array("ur:bytes/one".utf8), [], [0, 1, 2, 255]]), .codes([]), .noCode, .refused("too large"),
        ]
        for answer in answers {
            #expect(IsolatedImageDecoder.parseAnswer(IsolatedImageDecoder.encode(answer)) == answer)
        }
        let good = IsolatedImageDecoder.encode(.codes([[1, 2, 3]]))
        #expect(IsolatedImageDecoder.parseAnswer([]) == nil)
        #expect(IsolatedImageDecoder.parseAnswer(Array(good.dropLast())) == nil)  // a code cut short
        #expect(IsolatedImageDecoder.parseAnswer(good + [0]) == nil)  // trailing bytes
        #expect(IsolatedImageDecoder.parseAnswer([0, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)  // a count with no codes
        #expect(IsolatedImageDecoder.parseAnswer([1, 0]) == nil)
        #expect(IsolatedImageDecoder.parseAnswer([7]) == nil)
    }

    @Test("the signer's decode child reads a real QR PNG and gives the same bytes as in-process decoding")
    func childDecodes() throws {
        let png = try QRCode(text: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080").pngData()
        let inProcess = IsolatedImageDecoder.decodeInProcess(png: png)
        #expect(inProcess == .codes([Array("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080".utf8)]))
        #expect(IsolatedImageDecoder.decode(png: png, executable: try Self.signerBinary()) == inProcess)
    }

    /// CRC-32 (ISO 3309, as PNG uses), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("the child refuses an image over the pixel limit before decoding it; the same header in range passes it")
    func childRefuses() throws {
        func chunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
            let length = withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init)
            let crc = withUnsafeBytes(of: Self.crc32(Array(kind.utf8) + data).bigEndian, Array.init)
            return length + Array(kind.utf8) + data + crc
        }
        let side = withUnsafeBytes(of: UInt32(7000).bigEndian, Array.init)
        // One zlib-compressed zero byte of image data (zlib.compress(b"\\0")): enough for libpng to read the header.
        let data = chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])
        let huge =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", side + side + [8, 0, 0, 0, 0]) + data
            + chunk("IEND", [])
        let signer = try Self.signerBinary()
        guard case .refused(let reason) = IsolatedImageDecoder.decode(png: huge, executable: signer) else {
            Issue.record("a 49-megapixel header was not refused")
            return
        }
        #expect(reason.contains("7000×7000 pixels"))
        // The control: a 2000 px square header is within the limit, so libpng goes on and finds the data missing.
        let smallSide = withUnsafeBytes(of: UInt32(2000).bigEndian, Array.init)
        let small =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", smallSide + smallSide + [8, 0, 0, 0, 0])
            + data + chunk("IEND", [])
        guard case .refused(let other) = IsolatedImageDecoder.decode(png: small, executable: signer) else {
            Issue.record("a PNG without image data was accepted")
            return
        }
        #expect(!other.contains("pixels, more than"))
    }
}
