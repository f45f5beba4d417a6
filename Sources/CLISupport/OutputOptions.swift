import AirgapTransport
import ArgumentParser
import Foundation
import QRImage

extension QRDensity: ExpressibleByArgument {}

/// How QR codes frame a payload (`--qr-format`).
public enum QRFormatOption: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// BC-UR (`ur:crypto-psbt`, `ur:crypto-account`, …), multi-part fountain codes when large.
    case ur
    /// BBQr (Coldcard), multi-part when large.
    case bbqr
    /// Base64 in one code (PSBTs); plain text for text payloads.
    case base64
}

/// The output options of docs/architecture.md section 2, shared by every command that writes data: `--out FILE`, `--qr PATH.png`
/// (`PATH-01of07.png` … for a multi-part payload, or one grid with `--qr-sheet`), `--qr-format ur|bbqr|base64` and
/// `--terminal`.
public struct OutputOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("out"), help: "Write the data to FILE (atomically).")
    public var out: String?

    @Option(
        help: ArgumentHelp(
            "Write QR code PNGs: PATH.png, or PATH-01ofNN.png … for several parts; PATH.gif writes one looping "
                + "animated GIF of all parts.",
            valueName: "PATH.png|PATH.gif"))
    public var qr: String?

    @Flag(help: "With --qr: put all parts in one PNG grid.")
    public var qrSheet = false

    @Option(
        help: ArgumentHelp(
            "QR framing: ur, bbqr or base64 (default: ur, or the framing the input came in; watcher send and bump: "
                + "bbqr)."))
    public var qrFormat: QRFormatOption?

    @Option(
        help: ArgumentHelp(
            "How dense the codes may be for the reader at hand: low (QR version 10), medium (17) or high (25); "
                + "multi-part payloads are cut to fill codes of that size.",
            valueName: "low|medium|high"))
    public var qrDensity: QRDensity = .medium

    @Flag(help: "Draw the QR codes in the terminal.")
    public var terminal = false

    @Flag(
        help: "With --terminal: cycle the parts in place, as a hardware wallet's screen does, until a key is pressed.")
    public var animate = false

    @Option(help: "Frames a second of --qr PATH.gif and --terminal --animate (1 to 50).")
    public var fps: Int = 4

    public init() {}

    /// Whether any output destination was given.
    public var isRequested: Bool { out != nil || qr != nil || terminal }

    /// Whether `--qr` names an animated GIF.
    var writesGIF: Bool { qr?.lowercased().hasSuffix(".gif") == true }

    public func validate() throws {
        if qrSheet, qr == nil { throw ValidationError("--qr-sheet needs --qr PATH.png") }
        if let qr, !qr.lowercased().hasSuffix(".png"), !writesGIF {
            throw ValidationError("--qr needs a path ending in .png or .gif")
        }
        if qrSheet, writesGIF { throw ValidationError("--qr-sheet writes a PNG; give --qr PATH.png") }
        if animate, !terminal { throw ValidationError("--animate needs --terminal") }
        if !QRCode.gifFrameRates.contains(fps) { throw ValidationError("--fps must be 1 to 50") }
    }

    /// Whether the codes are shown in a loop (`--qr PATH.gif`, `--terminal --animate`).
    ///
    /// UR payloads then get fountain parts past the first pass, so a reader that missed a frame needs not wait a whole round. Still PNGs
    /// and sheets carry exactly the parts, numbered as their codes are ("2 of 4" is UR part 2-4).
    public var loops: Bool { writesGIF || animate }

    /// The QR texts for `payload` in the chosen format.
    ///
    /// A text payload (descriptor, JSON, plain text) that the
    /// format cannot carry goes into one plain-text code when it fits, else into BBQr.
    ///
    /// - Throws: `CLIError` (invalid input) when the payload cannot be framed at all.
    public func frames(
        for payload: Payload, encoder: FrameEncoder? = nil, preferred: QRFormatOption? = nil
    ) throws -> [String] {
        let encoder = encoder ?? FrameEncoder(density: qrDensity, urExtraParts: loops ? nil : 0)
        let chosen = qrFormat ?? preferred ?? .ur
        let format: FrameFormat =
            switch chosen {
            case .ur: .ur
            case .bbqr: .bbqr
            case .base64: .base64
            }
        do {
            return try encoder.frames(for: payload, format: format)
        } catch .unsupportedFrameFormat {
            switch payload {
            case .descriptor, .json, .text, .address, .chanceMultisig:
                if let single = try? encoder.frames(for: payload, format: .plain) { return single }
                do { return try encoder.frames(for: payload, format: .bbqr) } catch {
                    throw CLIError(.invalidInput, "cannot put this \(payload.kind.rawValue) in QR codes: \(error)")
                }
            default:
                throw CLIError(.invalidInput, "--qr-format \(chosen.rawValue) cannot carry a \(payload.kind.rawValue)")
            }
        } catch {
            throw CLIError(.invalidInput, "cannot put this \(payload.kind.rawValue) in QR codes: \(error)")
        }
    }

    /// Writes `fileBytes` to `--out`, the QR codes of `payload` to `--qr` and the terminal.
    ///
    /// Each PNG frame carries its caption under the code (`Airlock · PSBT request 1a2b3c4d · 2 of 4`).
    ///
    /// - Parameters:
    ///   - payload: what the QR codes carry.
    ///   - fileBytes: what `--out` receives.
    ///   - json: when true the terminal codes go to stderr, so stdout stays one JSON document.
    ///   - preferredFormat: the QR format to use when `--qr-format` is not given (the framing the input came in).
    ///   - texts: the QR texts when the caller framed the payload itself (`convert`); nil frames `payload` here.
    ///   - caption: the text under each frame; nil describes `payload` (`FrameCaption.describing`).
    ///   - show: also show the codes full-screen on the terminal until a key is pressed (`--show`, `FullScreenQR`),
    ///     after the files are written; UR then loops with fountain parts, as `--animate` does.
    /// - Returns: the paths written, in order; print them with `printWritten`.
    /// - Throws: `CLIError`; a payload that cannot be put in QR codes fails before `--out` is written.
    @discardableResult
    public func write(
        _ payload: Payload, fileBytes: [UInt8], json: Bool = false, preferredFormat: QRFormatOption? = nil,
        texts: [String]? = nil, caption: FrameCaption? = nil, show: Bool = false
    ) throws -> [String] {
        var written: [String] = []
        let encoder = show ? FrameEncoder(density: qrDensity, urExtraParts: nil) : nil
        let frameTexts =
            qr != nil || terminal || show
            ? try texts ?? frames(for: payload, encoder: encoder, preferred: preferredFormat) : []
        var codes: [QRCode] = []
        for text in frameTexts {
            do { codes.append(try QRCode(text: text)) } catch {
                throw CLIError(.invalidInput, "cannot encode a QR code: \(error)")
            }
        }
        if let out {
            try AtomicFileWriter.write(fileBytes, to: out)
            written.append(out)
        }
        guard qr != nil || terminal || show else { return written }
        let caption = caption ?? FrameCaption.describing(payload)
        if let qr {
            written +=
                writesGIF
                ? try writeGIF(codes, to: qr, caption: caption) : try writePNGs(codes, to: qr, caption: caption)
        }
        if terminal, animate {
            try TerminalAnimation(codes: codes, framesPerSecond: fps).run()
        } else if terminal {
            for (n, code) in codes.enumerated() {
                // A single code stays bare (what it carries is printed beside it); frames say which one they are.
                var block =
                    codes.count > 1 ? caption.lines(part: n + 1, of: codes.count).joined(separator: "\n") + "\n" : ""
                do { block += try code.terminalString() } catch {
                    throw CLIError(.invalidInput, "cannot draw the QR code: \(error)")
                }
                if json { Diagnostics.print(block) } else { print(block) }
            }
        }
        if show { try FullScreenQR(codes: codes, caption: caption, framesPerSecond: fps).run() }
        return written
    }

    /// Prints `paths` on stdout, one `wrote PATH` a line, so the user knows which names to carry over (a payload
    /// of several frames writes `PATH-01of04.png` …, not `PATH.png`).
    public static func printWritten(_ paths: [String]) {
        for path in paths { print("wrote \(path)") }
    }

    /// The PNG paths for `count` parts of `--qr PATH.png`.
    public static func partPaths(_ path: String, count: Int) -> [String] {
        guard count > 1 else { return [path] }
        let base = String(path.dropLast(4))
        let width = max(2, String(count).count)
        func padded(_ n: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return (1...count).map { "\(base)-\(padded($0))of\(padded(count)).png" }
    }

    /// One looping GIF; each frame is captioned with what it carries and how many codes loop (a fountain code's
    /// extra parts have no "k of n").
    private func writeGIF(_ codes: [QRCode], to path: String, caption: FrameCaption) throws -> [String] {
        let line = caption.line(part: 1, of: 1) + (codes.count > 1 ? " · \(codes.count) codes, looping" : "")
        do {
            let gif = try QRCode.animatedGIF(codes, framesPerSecond: fps, caption: [line] + caption.details)
            try AtomicFileWriter.write(gif, to: path)
            return [path]
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.io, "cannot write the animated GIF \(path): \(error)")
        }
    }

    private func writePNGs(_ codes: [QRCode], to path: String, caption: FrameCaption) throws -> [String] {
        do {
            if qrSheet, codes.count > 1 {
                let captions = codes.indices.map {
                    QRCode.drawableCaption(caption.line(part: $0 + 1, of: codes.count))
                }
                try AtomicFileWriter.write(try QRSheet(codes: codes, captions: captions).pngData(), to: path)
                return [path]
            }
            let paths = Self.partPaths(path, count: codes.count)
            for (index, (code, part)) in zip(codes, paths).enumerated() {
                let png = try code.pngData(caption: caption.lines(part: index + 1, of: codes.count))
                try AtomicFileWriter.write(png, to: part)
            }
            return paths
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.io, "cannot render QR PNG \(path): \(error)")
        }
    }
}
