import Foundation
import QRImage
import Synchronization

/// Image decoding (libpng, libjpeg-turbo, giflib and zbar: the largest attack surface the signer has) in a child process: the signer runs
/// itself again with a hidden argument, under a stricter seccomp filter (no new process, no file opened, no way out),
/// pipes the image bytes to its standard input and reads the QR codes' bytes from its standard output.
///
/// Limits: an image file of at most `InputReader.maximumFileSize` bytes and `maximumPixels` pixels; the answer at
/// most `maximumAnswer` bytes. A child that crashes or breaks the protocol is an invalid image (exit 2), never a
/// crash of the signer.
///
/// The answer (standard output): one status byte, then for status 0 (codes found) a 32-bit big-endian count and each
/// code as a 32-bit big-endian length and its bytes; for status 1 (no code found) nothing; for status 2 (the image is
/// refused) a UTF-8 message.
public enum IsolatedImageDecoder {
    /// The hidden first argument that runs `runChild()`.
    public static let childArgument = "__airlock-decode-image"
    /// The largest image accepted, in pixels (40 megapixels: a 6,300 px square; a QR sheet needs far less).
    public static let maximumPixels = 40_000_000
    /// The largest answer read from the child (16 MiB).
    public static let maximumAnswer = 16 << 20

    /// How images are decoded in this process: nil in-process (the watcher, the tests), else the program to run.
    static let executable = Mutex<String?>(nil)

    /// Makes `InputReader` decode every image in a child process running `path` (the signer: /proc/self/exe).
    public static func enable(executable path: String = ChildProcess.ownExecutable) {
        executable.withLock { $0 = path }
    }

    /// The program images are decoded with, when isolation is on.
    static var isolatedExecutable: String? { executable.withLock { $0 } }

    /// What decoding one image gave.
    public enum Answer: Equatable, Sendable {
        /// The codes' bytes, in reading order.
        case codes([[UInt8]])
        /// The image decoded but holds no QR code.
        case noCode
        /// The image was refused; why.
        case refused(String)
    }

    /// Decodes `png` in a child process running `executable`.
    public static func decode(png: [UInt8], executable: String) -> Answer {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(
                executable, arguments: ["airlock-signer", childArgument], input: png, maximumOutput: maximumAnswer)
        } catch {
            return .refused("the image decoder failed: \(error)")
        }
        guard outcome.succeeded else {
            return .refused("the image decoder process ended with status \(outcome.status)")
        }
        return parseAnswer(outcome.output) ?? .refused("the image decoder's answer is malformed")
    }

    /// Encodes an answer as the child writes it.
    static func encode(_ answer: Answer) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        switch answer {
        case .codes(let codes): return [0] + u32(codes.count) + codes.flatMap { u32($0.count) + $0 }
        case .noCode: return [1]
        case .refused(let message): return [2] + Array(message.utf8)
        }
    }

    /// Parses the child's answer; nil when malformed.
    static func parseAnswer(_ bytes: [UInt8]) -> Answer? {
        guard let status = bytes.first else { return nil }
        var at = 1
        func u32() -> Int? {
            guard at + 4 <= bytes.count else { return nil }
            defer { at += 4 }
            return bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        switch status {
        case 0:
            guard let count = u32() else { return nil }
            var codes: [[UInt8]] = []
            for _ in 0..<count {
                guard let length = u32(), at + length <= bytes.count else { return nil }
                codes.append(Array(bytes[at..<at + length]))
                at += length
            }
            return at == bytes.count ? .codes(codes) : nil
        case 1: return bytes.count == 1 ? .noCode : nil
        case 2: return String(validating: bytes[1...], as: UTF8.self).map { .refused($0) }
        default: return nil
        }
    }

    /// The child's work, after the caller installed the decoder filter.
    ///
    /// Reads the image from standard input (at most `InputReader.maximumFileSize` bytes), decodes it, writes the
    /// answer.
    /// - Returns: the exit status.
    public static func runChild() -> Int32 {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { return 6 }
            if n == 0 { break }
            input += buffer[0..<n]
            if input.count > InputReader.maximumFileSize {
                return write(encode(.refused("the image is larger than \(InputReader.maximumFileSize >> 20) MiB")))
            }
        }
        return write(encode(decodeInProcess(png: input)))
    }

    /// Decodes in this process (what the child does, and what the watcher does without isolation).
    static func decodeInProcess(png: [UInt8]) -> Answer {
        do {
            let reader = try QRReader(maxPixels: maximumPixels)
            return .codes(try reader.read(image: png).map(\.bytes))
        } catch {
            if case .noCodeFound = error { return .noCode }
            return .refused("\(error)")
        }
    }

    private static func write(_ bytes: [UInt8]) -> Int32 {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.write(1, $0 + written, raw.count - written) } ?? 0
            }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return 6 }
            written += n
        }
        return 0
    }
}
