import AirgapTransport
import Foundation
import QRImage

extension InputReader {
    /// Decodes the QR codes of a video (a phone's recording of an animated code) as one payload: frames are sampled
    /// by ffmpeg and read until the payload is whole, with a progress line ("frames 37/60, 61% of the payload").
    ///
    /// - Throws: `CLIError`: invalid input (2) for a video holding no QR code, an undecodable file or codes of an
    ///   incomplete or mixed payload; I/O (6) when ffmpeg cannot run.
    static func decodeVideo(_ path: String, expected: Set<PayloadKind>?) throws -> InputPayload {
        var decoder = PayloadDecoder(expecting: expected)
        let reader: QRReader
        do { reader = try QRReader(maxPixels: VideoFrames.maxFramePixels) } catch {
            throw CLIError(.invalidInput, "cannot set up the QR reader: \(error)")
        }
        let total = VideoFrames.sampledFrameCount(path: path)
        var codes = 0
        var frames = 0
        try VideoFrames.read(path: path) { frame in
            frames += 1
            let found = (try? reader.read(gray: frame.pixels, width: frame.width, height: frame.height)) ?? []
            for code in found {
                codes += 1
                do throws(PayloadError) { try decoder.receive(bytes: code.bytes) } catch {
                    throw CLIError(.invalidInput, "QR code in frame \(frames) of \(path): \(describe(error))")
                }
            }
            let percent = decoder.isComplete ? 100 : Int((decoder.progress?.fraction ?? 0) * 100)
            let of = total.map { "/\($0)" } ?? ""
            if Diagnostics.isTerminal {
                FileHandle.standardError.write(Data("\rframes \(frames)\(of), \(percent)% of the payload".utf8))
            } else if frames % 10 == 0 || decoder.isComplete {
                Diagnostics.print("frames \(frames)\(of), \(percent)% of the payload")
            }
            return !decoder.isComplete
        }
        if Diagnostics.isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
        guard codes > 0 else {
            throw CLIError(.invalidInput, "no QR code found in the video \(path) (\(frames) frames)")
        }
        do throws(PayloadError) {
            let (payload, format) = try decoder.result()
            return InputPayload(payload: payload, format: format, sources: [path], codeCount: codes)
        } catch {
            throw CLIError(.invalidInput, "\(path): \(describe(error))")
        }
    }
}

extension VideoFrames {
    /// How many frames `read` will sample from the video, from its duration as `ffprobe` reports it; nil when
    /// unknown.
    static func sampledFrameCount(path: String, framesPerSecond: Int = defaultFramesPerSecond) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1",
            path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), seconds > 0
        else { return nil }
        return Int((seconds * Double(framesPerSecond)).rounded(.up))
    }
}
