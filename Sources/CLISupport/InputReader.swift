import AirgapTransport
import Foundation
import QRImage
import Synchronization

/// A payload read from an `IN` argument, with its detected type and how it was framed.
public struct InputPayload: Sendable {
    /// The payload.
    public let payload: Payload
    /// The framing it arrived in (UR, BBQr, base64, binary, …).
    public let format: FrameFormat
    /// The files (or `-`) it was read from.
    public let sources: [String]
    /// QR codes read from PNG images (0 for files and stdin).
    public let codeCount: Int
}

/// Reads `IN` arguments as docs/architecture.md section 2 defines them: a file of binary or base64/hex text, `-` for stdin, or one
/// or more PNG images (or a directory of them) holding QR codes: one code, a sheet, or animated frames in any order.
///
/// Every code goes to `PayloadDecoder`, which detects the format and joins the parts.
public enum InputReader {
    /// The PNG file signature.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The largest input read from a file or stdin (64 MiB); more is invalid input (exit 2).
    public static let maximumFileSize = 64 << 20

    /// Reads and decodes `arguments`.
    ///
    /// - Parameters:
    ///   - arguments: the command's `IN` arguments.
    ///   - expected: the payload kinds the command accepts (nil: any).
    /// - Returns: the decoded payload and the format it came in.
    /// - Throws: `CLIError`: I/O (6) for unreadable files; invalid input (2) for undecodable data, a PNG without a
    ///   QR code, codes of two payloads, or an incomplete multi-part payload (naming the missing parts).
    public static func read(_ arguments: [String], expecting expected: Set<PayloadKind>? = nil) throws -> InputPayload {
        guard !arguments.isEmpty else { throw CLIError(.usage, "no input given (a file, '-' or PNG images)") }
        if arguments == ["-"] {
            return try decodeFile(readStandardInput(), source: "stdin", expected: expected)
        }
        var files: [String] = []
        for argument in arguments {
            guard argument != "-" else { throw CLIError(.usage, "'-' (stdin) cannot be combined with files") }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                throw CLIError(
                    .io,
                    "cannot read \(argument): no such file or directory"
                        + (suggestion(for: argument).map { "; did you mean \($0)?" } ?? ""))
            }
            if isDirectory.boolValue {
                let names: [String]
                do { names = try FileManager.default.contentsOfDirectory(atPath: argument) } catch {
                    throw CLIError(.io, "cannot list directory \(argument): \(error.localizedDescription)")
                }
                let imageEndings = [".png", ".jpg", ".jpeg", ".gif"]
                let pngs = names.filter { name in imageEndings.contains { name.lowercased().hasSuffix($0) } }.sorted()
                guard !pngs.isEmpty else {
                    throw CLIError(.invalidInput, "directory \(argument) holds no PNG, JPEG or GIF images")
                }
                files += pngs.map { (argument as NSString).appendingPathComponent($0) }
            } else {
                files.append(argument)
            }
        }
        var images: [String] = []
        var others: [(String, [UInt8])] = []
        for file in files {
            let bytes = try readFile(file)
            if VideoFrames.isVideo(path: file, prefix: Array(bytes.prefix(16))) {
                guard files.count == 1 else { throw CLIError(.usage, "give one video, alone: \(file)") }
                return try decodeVideo(file, expected: expected)
            }
            if QRReader.isImage(bytes) { images.append(file) } else { others.append((file, bytes)) }
        }
        if images.isEmpty, others.count == 1, let (path, bytes) = others.first {
            return try decodeFile(bytes, source: path, expected: expected)
        }
        guard others.isEmpty else {
            throw CLIError(
                .invalidInput,
                "give either one data file or images; not PNG, JPEG or GIF: \(others.map(\.0).joined(separator: ", "))")
        }
        return try decodeImages(images, expected: expected)
    }

    /// The frames `--qr NAME.png` wrote, when `path` names them the other way: `NAME-*.png` or `NAME-01of04.png`
    /// for a payload that fit one code (written as `NAME.png`), or `NAME.png` for one of several frames (written as
    /// `NAME-01of04.png` …).
    static func suggestion(for path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        func joined(_ file: String) -> String {
            directory.isEmpty ? file : (directory as NSString).appendingPathComponent(file)
        }
        let lower = name.lowercased()
        for ending in [".png", ".gif"] where lower.hasSuffix(ending) {
            let stem = String(name.dropLast(ending.count))
            // NAME-*.png, NAME*.png (a glob the shell left as it was) or NAME-01of04.png → NAME.png
            var base = stem
            if base.hasSuffix("*") { base.removeLast() }
            if base.hasSuffix("-") { base.removeLast() }
            if let range = base.range(of: #"-[0-9]+of[0-9]+$"#, options: .regularExpression) {
                base.removeSubrange(range)
            }
            if base != stem, FileManager.default.fileExists(atPath: joined(base + ending)) {
                return joined(base + ending)
            }
            // NAME.png → NAME-01of04.png …
            guard base == stem else { return nil }
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
            let parts = names.filter {
                $0.hasPrefix(stem + "-") && $0.lowercased().hasSuffix(ending)
                    && $0.dropFirst(stem.count).range(of: #"^-[0-9]+of[0-9]+\.[a-zA-Z]+$"#, options: .regularExpression)
                        != nil
            }.sorted()
            guard let first = parts.first, let last = parts.last else { return nil }
            let shown = parts.count == 1 ? joined(first) : "\(joined(stem))-*\(ending) (\(first) … \(last))"
            return shown
        }
        return nil
    }

    /// Decodes the QR codes of PNG images as one payload.
    static func decodeImages(_ paths: [String], expected: Set<PayloadKind>?) throws -> InputPayload {
        var decoder = PayloadDecoder(expecting: expected)
        var count = 0
        for (path, answer) in try decodeAll(paths) {
            let codes: [[UInt8]]
            switch answer {
            case .codes(let found): codes = found
            case .noCode: throw CLIError(.invalidInput, "no QR code found in \(path)")
            case .refused(let reason): throw CLIError(.invalidInput, "cannot read \(path): \(reason)")
            }
            for code in codes {
                count += 1
                do { try decoder.receive(bytes: code) } catch {
                    throw CLIError(.invalidInput, "QR code in \(path): \(describe(error))")
                }
            }
        }
        do {
            let (payload, format) = try decoder.result()
            return InputPayload(payload: payload, format: format, sources: paths, codeCount: count)
        } catch {
            throw CLIError(.invalidInput, describe(error))
        }
    }

    /// The raw bytes of every QR code in one image file (PNG, JPEG, GIF; a photo too).
    ///
    /// Decoded as `read` decodes (in the sandboxed child under the signer); for payloads that are not Airlock frames
    /// (SeedQR).
    ///
    /// - Throws: `CLIError`: I/O (6) for an unreadable file, invalid input (2) for an image without a code.
    public static func rawCodes(ofImage path: String) throws -> [[UInt8]] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CLIError(.io, "cannot read \(path): no such file")
        }
        guard QRReader.isImage(try readFile(path).prefix(16)) else {
            throw CLIError(.invalidInput, "\(path) is not a PNG, JPEG or GIF image")
        }
        guard let (_, answer) = try decodeAll([path]).first else { throw CLIError(.invalidInput, "\(path): no image") }
        switch answer {
        case .codes(let found): return found
        case .noCode: throw CLIError(.invalidInput, "no QR code found in \(path)")
        case .refused(let reason): throw CLIError(.invalidInput, "cannot read \(path): \(reason)")
        }
    }

    /// Each image's QR codes, in the order of `paths`: in child processes when `IsolatedImageDecoder` is enabled
    /// (the signer), else in this process.
    static func decodeAll(_ paths: [String]) throws -> [(String, IsolatedImageDecoder.Answer)] {
        guard let executable = IsolatedImageDecoder.isolatedExecutable else {
            return QRReader.readFiles(atPaths: paths, maxPixels: IsolatedImageDecoder.maximumPixels).map { file in
                switch file.result {
                case .success(let found): (file.path, .codes(found.map(\.bytes)))
                case .failure(.noCodeFound): (file.path, .noCode)
                case .failure(let error): (file.path, .refused("\(error)"))
                }
            }
        }
        let images = try paths.map { try readFile($0) }
        let slots = Mutex<[IsolatedImageDecoder.Answer?]>(Array(repeating: nil, count: paths.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(
            iterations: max(1, min(ProcessInfo.processInfo.activeProcessorCount, paths.count))
        ) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < paths.count else { return }
                let answer = IsolatedImageDecoder.decode(png: images[index], executable: executable)
                slots.withLock { $0[index] = answer }
            }
        }
        let answers = slots.withLock { $0 }
        return zip(paths, answers).map { ($0, $1 ?? .refused("not decoded")) }
    }

    /// Standard input, at most `maximumFileSize` bytes.
    ///
    /// - Throws: `CLIError` invalid input (2) when it holds more, I/O (6) when it cannot be read.
    static func readStandardInput() throws -> [UInt8] {
        let data: Data
        do { data = try FileHandle.standardInput.read(upToCount: maximumFileSize + 1) ?? Data() } catch {
            throw CLIError(.io, "cannot read stdin: \(error.localizedDescription)")
        }
        guard data.count <= maximumFileSize else {
            throw CLIError(.invalidInput, "stdin holds more than \(maximumFileSize >> 20) MiB (the input limit)")
        }
        return Array(data)
    }

    /// Decodes a file's bytes: a binary PSBT, or text (one payload, or QR part texts one per line).
    static func decodeFile(_ bytes: [UInt8], source: String, expected: Set<PayloadKind>?) throws -> InputPayload {
        var decoder = PayloadDecoder(expecting: expected)
        do {
            let text = String(validating: bytes, as: UTF8.self)
            let lines =
                text?.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty } ?? []
            let partLines =
                lines.count > 1 && lines.allSatisfy { $0.lowercased().hasPrefix("ur:") || $0.hasPrefix("B$") }
            if partLines {
                for line in lines { try decoder.receive(line) }
            } else {
                try decoder.receive(bytes: bytes)
            }
            let (payload, format) = try decoder.result()
            return InputPayload(payload: payload, format: format, sources: [source], codeCount: 0)
        } catch {
            throw CLIError(.invalidInput, "\(source): \(describe(error))")
        }
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maximumFileSize + 1) ?? Data() } catch {
            throw CLIError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= maximumFileSize else { throw CLIError(.invalidInput, "\(path) is larger than 64 MiB") }
        return Array(data)
    }

    /// A message for a payload error; an incomplete series names what is missing.
    public static func describe(_ error: PayloadError) -> String {
        switch error {
        case .incomplete(let progress):
            let total = progress.totalParts.map(String.init) ?? "?"
            var text =
                "incomplete \(progress.format.rawValue.uppercased()) payload: \(progress.receivedParts) of \(total) parts"
            if !progress.missingParts.isEmpty {
                text += "; missing part\(progress.missingParts.count == 1 ? "" : "s") "
                text += progress.missingParts.map(String.init).joined(separator: ", ")
            }
            if progress.missingIsEstimate {
                text += " (UR fountain codes: any further frames can complete it)"
            }
            return text
        case .empty: return "no data"
        case .unexpectedKind(let expected, let actual):
            return "expected \(expected.map(\.rawValue).sorted().joined(separator: " or ")), got \(actual.rawValue)"
        default: return String(describing: error)
        }
    }
}
