import Foundation

/// The frames of a video file (a phone's recording of an animated QR code), decoded by Debian's `ffmpeg` command in a
/// child process and read back as 8-bit gray PGM images from its standard output.
///
/// No codec is linked into Airlock: ffmpeg runs as its own process and inherits the caller's seccomp filter (a filter
/// survives fork and exec), so the signer's "no way out" rule holds for it too. Frames are sampled at a fixed rate and
/// handed to the caller one at a time; the caller stops the decoding (and ffmpeg) as soon as its payload is whole.
public enum VideoFrames {
    /// File name endings read as video.
    public static let fileExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv", "avi"]
    /// Frames sampled a second: enough to catch every part of an animation shown at up to 10 frames a second.
    public static let defaultFramesPerSecond = 10
    /// The largest frame accepted (8K UHD).
    public static let maxFramePixels = 7_680 * 4_320

    /// One decoded frame.
    public struct Frame: Sendable {
        /// Width in pixels.
        public let width: Int
        /// Height in pixels.
        public let height: Int
        /// `width * height` gray samples, top row first.
        public let pixels: [UInt8]
    }

    /// Whether `path` names a video: by its ending, or by the container's signature (ISO BMFF `ftyp`, Matroska/WebM
    /// EBML, RIFF AVI) in `prefix`, its first bytes.
    public static func isVideo(path: String, prefix: [UInt8]) -> Bool {
        if fileExtensions.contains((path as NSString).pathExtension.lowercased()) { return true }
        if prefix.count >= 8, Array(prefix[4..<8]) == Array("ftyp".utf8) { return true }
        if prefix.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }
        return prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8))
            && Array(prefix[8..<12]) == Array("AVI ".utf8)
    }

    /// Raised by `read(arguments:…)` when its deadline passes before the stream ends or `body` stops it.
    public struct TimedOut: Error, Sendable {}

    /// ffmpeg's command line (run through `env`): `input` (the input options and `-i SOURCE`), then frames sampled
    /// at `framesPerSecond`, converted to 8-bit gray and written as concatenated PGM images to standard output.
    public static func ffmpegArguments(
        input: [String], framesPerSecond: Int = defaultFramesPerSecond, ffmpeg: String = "ffmpeg"
    ) -> [String] {
        ["env", ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error"] + input + [
            "-vf", "fps=\(framesPerSecond)", "-pix_fmt", "gray", "-f", "image2pipe", "-vcodec", "pgm", "-",
        ]
    }

    /// Decodes the video at `path` and calls `body` with each sampled frame, in order, until `body` returns false or
    /// the video ends; ffmpeg is stopped at once in the first case.
    ///
    /// - Parameters:
    ///   - path: the video file.
    ///   - framesPerSecond: the sampling rate.
    ///   - ffmpeg: the ffmpeg executable (found on PATH by default).
    ///   - body: called with each frame; returns whether to go on.
    /// - Returns: the number of frames handed to `body`.
    /// - Throws: `CLIError` (invalid input) naming ffmpeg's complaint for a file it cannot decode, (I/O) when ffmpeg
    ///   cannot be started; whatever `body` throws.
    @discardableResult
    public static func read(
        path: String, framesPerSecond: Int = defaultFramesPerSecond, ffmpeg: String = "ffmpeg",
        _ body: (Frame) throws -> Bool
    ) throws -> Int {
        try read(
            arguments: ffmpegArguments(input: ["-i", path], framesPerSecond: framesPerSecond, ffmpeg: ffmpeg),
            failure: { CLIError(.invalidInput, "cannot decode the video \(path): \($0)") }, body)
    }

    /// Runs ffmpeg with `arguments` (from `ffmpegArguments`) and calls `body` with each frame it writes, until `body`
    /// returns false, the stream ends, or `deadline` passes; ffmpeg is stopped at once in the first and last case.
    ///
    /// - Parameters:
    ///   - arguments: the command line, `env` first.
    ///   - deadline: when to give up waiting (nil: never).
    ///   - failure: the error for ffmpeg's complaint (its last line) when it fails before `body` stopped it.
    ///   - body: called with each frame; returns whether to go on.
    /// - Returns: the number of frames handed to `body`.
    /// - Throws: `TimedOut` past the deadline; `failure(…)`; `CLIError` (I/O) when ffmpeg cannot be started;
    ///   whatever `body` throws.
    @discardableResult
    public static func read(
        arguments: [String], deadline: ContinuousClock.Instant? = nil, failure: (String) -> CLIError,
        _ body: (Frame) throws -> Bool
    ) throws -> Int {
        // posix_spawn (ChildProcess), not Foundation's Process: under the signer's seccomp filter Process cannot
        // create CFSocket's wakeup sockets and never sees the child end.
        let environment = ProcessInfo.processInfo.environment["PATH"].map { ["PATH=\($0)"] } ?? []
        let process: ChildProcess.Running
        do {
            process = try ChildProcess.start(
                "/usr/bin/env", arguments: arguments, environment: environment, captureStandardError: true)
        } catch {
            throw CLIError(.io, "cannot start ffmpeg: \(error)")
        }
        process.closeInput()
        var reader = PGMStream(descriptor: process.output, deadline: deadline)
        var count = 0
        var stoppedEarly = false
        do {
            while let frame = try reader.next() {
                count += 1
                guard try body(frame) else {
                    stoppedEarly = true
                    break
                }
            }
        } catch {
            close(process.output)
            kill(process.pid, SIGKILL)
            _ = process.readErrors()
            _ = process.wait()
            throw error
        }
        if stoppedEarly {
            // ffmpeg may be blocked writing the next frame: close the pipe and kill it (it holds nothing to flush).
            kill(process.pid, SIGKILL)
        }
        close(process.output)
        let complaint = String(decoding: process.readErrors(), as: UTF8.self)
        let status = process.wait()
        if !stoppedEarly, status != 0 || (count == 0 && !complaint.isEmpty) {
            throw failure(complaint.split(separator: "\n").last.map(String.init) ?? "exit \(status)")
        }
        return count
    }
}

/// Reads concatenated binary PGM images (`P5`, 8-bit) from a pipe.
struct PGMStream {
    let descriptor: Int32
    /// When to stop waiting for more bytes (`VideoFrames.TimedOut`); nil waits as long as the writer takes.
    let deadline: ContinuousClock.Instant?
    private var buffer: [UInt8] = []
    private var position = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(descriptor: Int32, deadline: ContinuousClock.Instant? = nil) {
        self.descriptor = descriptor
        self.deadline = deadline
    }

    /// The next frame, or nil at the end of the stream.
    mutating func next() throws -> VideoFrames.Frame? {
        guard try fill(2) else { return nil }
        guard buffer[position] == UInt8(ascii: "P"), buffer[position + 1] == UInt8(ascii: "5") else {
            throw CLIError(.invalidInput, "ffmpeg's frame stream is not PGM")
        }
        position += 2
        let width = try number()
        let height = try number()
        let maxValue = try number()
        position += 1  // the single whitespace after the header
        guard width > 0, height > 0, width * height <= VideoFrames.maxFramePixels, maxValue == 255 else {
            throw CLIError(.invalidInput, "unsupported video frame \(width)×\(height) (max value \(maxValue))")
        }
        let count = width * height
        guard try fill(count) else { throw CLIError(.invalidInput, "the video's last frame is cut short") }
        let pixels = Array(buffer[position..<(position + count)])
        position += count
        return VideoFrames.Frame(width: width, height: height, pixels: pixels)
    }

    /// A decimal header field, after any whitespace.
    private mutating func number() throws -> Int {
        var value = 0
        var digits = 0
        while try fill(1) {
            let byte = buffer[position]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
            {
                if digits > 0 { return value }
                position += 1
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 else {
                throw CLIError(.invalidInput, "malformed PGM header in ffmpeg's frame stream")
            }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        throw CLIError(.invalidInput, "ffmpeg's frame stream ended inside a header")
    }

    /// Makes at least `count` unread bytes available; false at the end of the stream.
    private mutating func fill(_ count: Int) throws -> Bool {
        if position > 1 << 20 {
            buffer.removeFirst(position)
            position = 0
        }
        while buffer.count - position < count {
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline).components
                let milliseconds = left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000
                guard milliseconds > 0 else { throw VideoFrames.TimedOut() }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, Int32(min(milliseconds, 60_000)))
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { continue }  // the loop checks the deadline again
            }
            let fd = descriptor
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw CLIError(.io, "cannot read ffmpeg's frames: \(String(cString: strerror(errno)))")
            }
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
        }
        return true
    }
}
