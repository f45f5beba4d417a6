import AirgapTransport
import Foundation
import QRImage
import Testing

@testable import CLISupport

/// `IN` reading (docs/architecture.md section 2): PNG frames in any order, sheets, files, and the missing-part error.
@Suite("InputReader")
struct InputReaderTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "airlock-input-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// 1,500 pseudo-random bytes (a fixed LCG, incompressible for BBQr's zlib), so the payload needs several codes.
    static let bytes: [UInt8] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<1500).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(state >> 56)
        }
    }()

    static func writeFrames(_ frames: [String], in dir: String, order: [Int]) throws -> [String] {
        var paths: [String] = []
        for (n, index) in order.enumerated() {
            let path = "\(dir)/frame-\(n).png"
            try Data(try QRCode(text: frames[index]).pngData()).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    @Test("UR frames as separate PNGs, shuffled, decode to the payload (directory and file list)")
    func shuffledURFrames() throws {
        let frames = try FrameEncoder(urMaxFragmentLength: 200, urExtraParts: 0).frames(
            for: .bytes(Self.bytes), format: .ur)
        #expect(frames.count > 3)
        let dir = try Self.directory()
        let order = Array(frames.indices).reversed().map { $0 }
        let paths = try Self.writeFrames(frames, in: dir, order: Array(order))
        let fromDirectory = try InputReader.read([dir])
        #expect(fromDirectory.payload == .bytes(Self.bytes))
        #expect(fromDirectory.format == .ur)
        #expect(fromDirectory.codeCount == frames.count)
        let fromFiles = try InputReader.read(paths.shuffled())
        #expect(fromFiles.payload == .bytes(Self.bytes))
    }

    @Test("a BBQr series missing part 2 names it")
    func missingPart() throws {
        let frames = try FrameEncoder(bbqr: BBQrSplitter(versions: 5...5)).frames(
            for: .bytes(Self.bytes), format: .bbqr)
        #expect(frames.count >= 3)
        let dir = try Self.directory()
        _ = try Self.writeFrames(frames, in: dir, order: frames.indices.filter { $0 != 1 })
        #expect {
            try InputReader.read([dir])
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.status == .invalidInput && error.message.contains("missing part 2")
                && error.message.contains("\(frames.count - 1) of \(frames.count)")
        }
    }

    @Test("a sheet PNG written by OutputOptions reads back")
    func sheetRoundTrip() throws {
        let dir = try Self.directory()
        var options = try OutputOptions.parse(["--qr", "\(dir)/out.png", "--qr-sheet", "--qr-format", "bbqr"])
        options.terminal = false
        let written = try options.write(.bytes(Self.bytes), fileBytes: [])
        #expect(written == ["\(dir)/out.png"])
        #expect(try InputReader.read(["\(dir)/out.png"]).payload == .bytes(Self.bytes))
    }

    @Test("multi-part --qr writes PATH-01ofNN.png files that read back in any order")
    func partFiles() throws {
        let dir = try Self.directory()
        let options = try OutputOptions.parse(["--qr", "\(dir)/psbt.png", "--qr-format", "bbqr"])
        let written = try options.write(.bytes(Self.bytes), fileBytes: [])
        #expect(written.count > 1)
        #expect(written.first == "\(dir)/psbt-01of\(String(format: "%02d", written.count)).png")
        #expect(try InputReader.read(written.reversed()).payload == .bytes(Self.bytes))
    }

    @Test("a text file of base64 and a binary file decode; a PNG without a code is named")
    func files() throws {
        let dir = try Self.directory()
        let psbt: [UInt8] = [0x70, 0x73, 0x62, 0x74, 0xFF] + Array(repeating: 0, count: 20)
        try Data(psbt).write(to: URL(fileURLWithPath: "\(dir)/a.psbt"))
        try Data(psbt).base64EncodedString().write(toFile: "\(dir)/a.txt", atomically: true, encoding: .utf8)
        #expect(try InputReader.read(["\(dir)/a.psbt"]).payload == .psbt(psbt))
        #expect(try InputReader.read(["\(dir)/a.txt"]).payload == .psbt(psbt))
        #expect(throws: CLIError.self) { try InputReader.read(["\(dir)/missing"]) }
    }
}
