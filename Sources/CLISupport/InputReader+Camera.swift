import AirgapTransport
import BitcoinCrypto
import Foundation
import QRImage

extension InputReader {
    /// Reads one payload live from a camera (`--camera [DEVICE]`).
    ///
    /// Frames come from ffmpeg as for a video, each one's QR codes go to `PayloadDecoder`, and the reading stops as
    /// soon as the payload is whole. Progress ("frames 37 · 5 of 12 parts") goes to stderr.
    ///
    /// - Parameters:
    ///   - source: the device or the video file standing in for it (`CameraSource.open`).
    ///   - expected: the payload kinds the command accepts (nil: any).
    ///   - timeout: how long to wait for the whole payload (nil: until it comes or the stream ends).
    /// - Returns: the payload, its framing, and the number of codes read.
    /// - Throws: `CLIError`: I/O (6) when the camera cannot be read or the timeout passes (naming the parts read so
    ///   far); invalid input (2) for codes of another or a mixed payload, or a video that ends before the payload is
    ///   whole.
    public static func readCamera(
        _ source: CameraSource, expecting expected: Set<PayloadKind>? = nil, timeout: Duration? = nil
    ) throws -> InputPayload {
        var decoder = PayloadDecoder(expecting: expected)
        var codes = 0
        let progress = ScanProgress(source: source)
        func state() -> String { describeScan(decoder, codes: codes) }
        let frames = try scan(source, timeout: timeout, state: state) { found, frame in
            for code in found {
                codes += 1
                do throws(PayloadError) { try decoder.receive(bytes: code) } catch {
                    throw CLIError(.invalidInput, "QR code in frame \(frame) from \(source.name): \(describe(error))")
                }
            }
            progress.show(frames: frame, state: state(), done: decoder.isComplete)
            return decoder.isComplete
        }
        progress.finish()
        guard codes > 0 else { throw CLIError(.invalidInput, "no QR code seen from \(source.name) (\(frames) frames)") }
        do throws(PayloadError) {
            let (payload, format) = try decoder.result()
            return InputPayload(payload: payload, format: format, sources: [source.path], codeCount: codes)
        } catch {
            throw CLIError(.invalidInput, "\(source.name) ended before the payload was whole: \(describe(error))")
        }
    }

    /// Reads the first QR code `accept` takes from a camera (a SeedQR for `restore --camera`).
    ///
    /// Other codes are skipped and counted; their bytes are wiped.
    ///
    /// - Parameters:
    ///   - source: the device or video file.
    ///   - what: what is looked for, for messages ("SeedQR").
    ///   - timeout: how long to look (nil: until found or the stream ends).
    ///   - accept: whether a code's raw bytes are what is looked for.
    /// - Returns: the accepted code's raw bytes (the caller wipes them).
    /// - Throws: `CLIError`: I/O (6) when the camera cannot be read or the timeout passes; invalid input (2) when the
    ///   stream ends without such a code.
    public static func readCameraCode(
        _ source: CameraSource, looking what: String, timeout: Duration? = nil, accept: ([UInt8]) -> Bool
    ) throws -> [UInt8] {
        var other = 0
        var found: [UInt8]?
        let progress = ScanProgress(source: source)
        func state() -> String { other == 0 ? "no \(what) yet" : "no \(what) yet (\(other) other QR codes)" }
        let frames = try scan(source, timeout: timeout, state: state) { codes, frame in
            for var code in codes {
                if found == nil, accept(code) {
                    found = code
                } else {
                    other += 1
                    SecretBytes.wipe(&code)
                }
            }
            progress.show(frames: frame, state: found == nil ? state() : "\(what) read", done: found != nil)
            return found != nil
        }
        progress.finish()
        guard let found else {
            throw CLIError(
                .invalidInput, "no \(what) seen from \(source.name) (\(frames) frames, \(other) other QR codes)")
        }
        return found
    }

    /// Feeds each frame's QR codes to `body` (codes, frame number) until it returns true (done).
    ///
    /// - Returns: the number of frames read.
    /// - Throws: `CLIError` I/O for a camera ffmpeg cannot read and when `timeout` passes (with `state()`).
    static func scan(
        _ source: CameraSource, timeout: Duration?, state: () -> String,
        _ body: ([[UInt8]], Int) throws -> Bool
    ) throws -> Int {
        let reader: QRReader
        do { reader = try QRReader(maxPixels: VideoFrames.maxFramePixels) } catch {
            throw CLIError(.invalidInput, "cannot set up the QR reader: \(error)")
        }
        var frames = 0
        func failure(_ reason: String) -> CLIError {
            source.kind == .device
                ? CLIError(.io, "cannot read \(source.name): \(reason)")
                : CLIError(.invalidInput, "cannot decode \(source.name): \(reason)")
        }
        do {
            try VideoFrames.read(
                arguments: source.ffmpegArguments(), deadline: timeout.map { ContinuousClock.now + $0 },
                failure: failure
            ) { frame in
                frames += 1
                let found = (try? reader.read(gray: frame.pixels, width: frame.width, height: frame.height)) ?? []
                return try !body(found.map(\.bytes), frames)
            }
        } catch is VideoFrames.TimedOut {
            ScanProgress(source: source).finish()
            let seconds = timeout.map(CameraOptions.describe) ?? "?"
            throw CLIError(
                .io,
                "gave up reading \(source.name) after \(seconds) s (--timeout), \(frames) frames: \(state()); "
                    + "hold the code steady in front of the camera, closer or farther, and try again")
        }
        return frames
    }

    /// Where a payload scan stands, for the progress line and the timeout message.
    static func describeScan(_ decoder: PayloadDecoder, codes: Int) -> String {
        if decoder.isComplete { return "payload complete" }
        if let progress = decoder.progress { return progress.summary }
        return codes == 0 ? "no QR code yet" : "\(codes) QR codes, none of a payload yet"
    }
}

/// The progress line of a camera scan on stderr: rewritten in place on a terminal, a line every 10 frames otherwise.
struct ScanProgress {
    let source: CameraSource

    func show(frames: Int, state: String, done: Bool) {
        let line = "\(source.name): frames \(frames) · \(state)"
        if Diagnostics.isTerminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else if frames % 10 == 0 || done {
            Diagnostics.print(line)
        }
    }

    func finish() {
        if Diagnostics.isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
