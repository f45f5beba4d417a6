import AirgapTransport
import Foundation
import Testing

@testable import CLISupport

/// Videos of animated QR codes, made by tools not written here: segno draws each part, ffmpeg makes the MP4 (with
/// duplicated and dropped frames, as a phone's recording has); Airlock samples the frames through ffmpeg.
@Suite("Video input")
struct VideoInputTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "airlock-video-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func run(_ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError(.io, "\(arguments[0]) exited with \(process.terminationStatus)")
        }
    }

    /// Draws `texts` with segno (one PNG each, one size for all) and makes an MP4 of them at 4 frames a second.
    static func makeVideo(_ texts: [String], in directory: String) throws -> String {
        for (index, text) in texts.enumerated() {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + String(format: "/t%03d.txt", index)))
        }
        let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".venv/bin/python").path
        try run(
            [
                python, "-c",
                """
                import glob, segno
                for n, name in enumerate(sorted(glob.glob('t*.txt'))):
                    text = open(name).read()
                    segno.make(text, error='l', version=12, micro=False).save('f%03d.png' % n, scale=4, border=4)
                """,
            ], in: directory)
        try run(
            [
                "ffmpeg", "-y", "-loglevel", "error", "-framerate", "4", "-i", "f%03d.png", "-vf",
                "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=white", "-c:v", "libx264", "-pix_fmt", "yuv420p", "video.mp4",
            ], in: directory)
        return directory + "/video.mp4"
    }

    @Test("UR fountain frames with repeats and gaps decode from an MP4 to the payload")
    func urVideo() throws {
        let payload = ImageRoundTripTests.bytes(3_000)
        let parts = try FrameEncoder(urMaxFragmentLength: 200, urExtraParts: 6).frames(
            for: .bytes(payload), format: .ur)
        #expect(parts.count > 10)
        // A recording: part 3 shown twice in a row, parts 2 and 5 missed (fountain parts past the first pass cover them).
        var shown = parts
        shown.insert(parts[2], at: 3)
        shown.removeAll { $0 == parts[1] || $0 == parts[4] }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let video = try Self.makeVideo(shown, in: directory)
        let read = try InputReader.read([video])
        #expect(read.format == .ur)
        guard case .bytes(let bytes) = read.payload else {
            Issue.record("expected bytes, got \(read.payload.kind)")
            return
        }
        #expect(bytes == payload)
        #expect(read.codeCount >= parts.count - 8)
    }

    @Test("a video holding no QR code exits 2 with a clear message")
    func noCode() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.run(
            [
                "ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=5",
                "-pix_fmt", "yuv420p", "blank.mp4",
            ], in: directory)
        #expect {
            try InputReader.read([directory + "/blank.mp4"])
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.status == .invalidInput && error.message.contains("no QR code found in the video")
        }
    }

    @Test("a file that only claims to be a video is refused with ffmpeg's reason")
    func notAVideo() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fake.mp4"
        try Data("this is not a video".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try InputReader.read([path])
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.status == .invalidInput && error.message.contains("cannot decode the video")
        }
    }
}
