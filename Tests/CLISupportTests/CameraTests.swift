import AirgapTransport
import Foundation
import QRImage
import Testing

@testable import CLISupport

/// `--camera [DEVICE]` and `--show` (docs/signer.md, "Camera"): the ffmpeg command line for a V4L2 device and for a
/// video file standing in for one, what a path is taken for, the deadline of a frame stream, the progress line, and
/// the full-screen layout of `--show`.
@Suite("Camera and full-screen QR")
struct CameraTests {
    @Test("a V4L2 device is opened with -f v4l2, a size and a rate, and comes out as gray PGM frames")
    func deviceArguments() {
        let source = CameraSource(path: "/dev/video2", kind: .device)
        #expect(
            source.ffmpegArguments() == [
                "env", "ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error",
                "-f", "v4l2", "-framerate", "30", "-video_size", "1280x720", "-i", "/dev/video2",
                "-vf", "fps=10", "-pix_fmt", "gray", "-f", "image2pipe", "-vcodec", "pgm", "-",
            ])
        #expect(source.name == "the camera /dev/video2")
    }

    @Test("a video file standing in for a camera is played at its own speed, without the V4L2 input")
    func fileArguments() {
        let source = CameraSource(path: "clip.mp4", kind: .videoFile)
        #expect(
            source.ffmpegArguments(framesPerSecond: 5) == [
                "env", "ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-i", "clip.mp4",
                "-vf", "fps=5", "-pix_fmt", "gray", "-f", "image2pipe", "-vcodec", "pgm", "-",
            ])
        // The plain video input (`sign clip.mp4`) is the same command without -re.
        #expect(
            VideoFrames.ffmpegArguments(input: ["-i", "clip.mp4"]).filter { $0 == "-re" || $0 == "v4l2" }.isEmpty)
    }

    @Test("a missing device is an I/O error naming what to do; a character device and a regular file are accepted")
    func opening() throws {
        let missing = "/nonexistent/video9"
        #expect {
            _ = try CameraSource.open(missing)
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.status == .io && error.message.contains(missing) && error.message.contains("/dev/video")
        }
        #expect(try CameraSource.open("/dev/null").kind == .device)
        let file = NSTemporaryDirectory() + "airlock-camera-\(UUID().uuidString).mp4"
        try Data([0]).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try CameraSource.open(file) == CameraSource(path: file, kind: .videoFile))
        #expect {
            _ = try CameraSource.open(NSTemporaryDirectory())
        } throws: { ($0 as? CLIError)?.status == .invalidInput }
    }

    @Test("more than one argument, or stdin, with --camera is a usage error; one or none is the control")
    func oneDevice() throws {
        let options = CameraOptions()
        #expect { _ = try options.source(["/dev/null", "/dev/zero"]) } throws: { ($0 as? CLIError)?.status == .usage }
        #expect { _ = try options.source(["-"]) } throws: { ($0 as? CLIError)?.status == .usage }
        #expect(try options.source(["/dev/null"]).path == "/dev/null")
        #expect(CameraOptions.describe(.seconds(5)) == "5")
        #expect(CameraOptions.describe(.milliseconds(2500)) == "2.5")
    }

    @Test("a frame stream that stays silent past its deadline times out; the same stream with a frame is read")
    func deadline() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        var silent = PGMStream(descriptor: fds[0], deadline: .now + .milliseconds(200))
        let started = ContinuousClock.now
        #expect(throws: VideoFrames.TimedOut.self) { _ = try silent.next() }
        #expect(started.duration(to: .now) >= .milliseconds(150))
        let frame = Array("P5\n2 1\n255\n".utf8) + [0, 255]
        #expect(write(fds[1], frame, frame.count) == frame.count)
        close(fds[1])
        var control = PGMStream(descriptor: fds[0], deadline: .now + .seconds(5))
        let read = try #require(try control.next())
        #expect(read.width == 2 && read.height == 1 && read.pixels == [0, 255])
        #expect(try control.next() == nil)
    }

    @Test("the scan progress says k of n parts for BBQr and the fountain's share for UR")
    func progress() throws {
        let payload = ImageRoundTripTests.bytes(2_000)
        let bbqr = try FrameEncoder(density: .low).frames(for: .bytes(payload), format: .bbqr)
        try #require(bbqr.count > 2)
        var decoder = PayloadDecoder()
        #expect(InputReader.describeScan(decoder, codes: 0) == "no QR code yet")
        try decoder.receive(bbqr[0])
        try decoder.receive(bbqr[2])
        #expect(InputReader.describeScan(decoder, codes: 2) == "2 of \(bbqr.count) parts")
        let ur = try FrameEncoder(urMaxFragmentLength: 200, urExtraParts: 0).frames(for: .bytes(payload), format: .ur)
        var fountain = PayloadDecoder()
        try fountain.receive(ur[0])
        let line = InputReader.describeScan(fountain, codes: 1)
        #expect(line.contains("UR fountain") && line.contains("1 parts of \(ur.count) read") && line.hasSuffix(")"))
        for part in ur { try fountain.receive(part) }
        #expect(InputReader.describeScan(fountain, codes: ur.count) == "payload complete")
    }

    @Test("--show sizes the code to the terminal: the largest whole scale that fits, with the counter and the hint")
    func layout() throws {
        let code = try QRCode(text: String(repeating: "UR:BYTES/3-12/LPAXCFAOBD", count: 8))
        let side = code.size + 2 * QRCode.defaultMargin
        let caption = FrameCaption(what: "signed PSBT", shortID: "1a2b3c4d")
        for (columns, rows) in [(120, 60), (300, 90), (side, side / 2 + 3)] {
            let scale = FullScreenQR.scale(side: side, columns: columns, rows: rows)
            #expect(scale >= 1)
            #expect(side * scale <= columns && (side * scale + 1) / 2 + 2 <= rows)
            #expect(side * (scale + 1) > columns || (side * (scale + 1) + 1) / 2 + 2 > rows)  // the largest
            let screen = FullScreenQR.screen(
                code: code, part: 3, of: 12, caption: caption, columns: columns, rows: rows)
            #expect(screen.count == rows)
            #expect(screen[0].contains("Airlock · signed PSBT 1a2b3c4d · 3/12"))
            #expect(screen.last?.contains("any key stops") == true, "\(columns)x\(rows): \(screen.last ?? "")")
            let visible = screen.map {
                $0.replacingOccurrences(of: "\u{1B}[40;37;1m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
            }
            #expect(visible.allSatisfy { $0.count <= columns })
            #expect(
                visible.filter { $0.contains("\u{2588}") || $0.contains("\u{2580}") }.count == (side * scale + 1) / 2)
        }
        // Too small: no code, a message saying how large the terminal must be.
        #expect(FullScreenQR.scale(side: side, columns: side - 1, rows: 200) == 0)
        let small = FullScreenQR.screen(code: code, part: 1, of: 2, caption: caption, columns: side - 1, rows: 20)
        #expect(small.count == 20 && small.contains { $0.contains("Make the terminal larger") })
        #expect(!small.contains { $0.contains("\u{2588}") })
    }

    @Test("the half-block lines at scale 2 are the scale 1 lines with every module doubled")
    func scaledLines() throws {
        let code = try QRCode(text: "airlock")
        let one = code.halfBlockLines(scale: 1)
        let two = code.halfBlockLines(scale: 2)
        let side = code.size + 2 * QRCode.defaultMargin
        #expect(one.count == (side + 1) / 2 && two.count == side)
        #expect(two.allSatisfy { $0.count == 2 * side })
        // At scale 2 every line is whole modules (full block or space); at scale 1 the top row pairs with the second.
        #expect(two.allSatisfy { $0.allSatisfy { $0 == "\u{2588}" || $0 == " " } })
        #expect(one.contains { $0.contains("\u{2580}") || $0.contains("\u{2584}") })
    }
}
