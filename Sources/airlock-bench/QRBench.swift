import AirgapTransport
import ArgumentParser
import Foundation
import QRImage

extension AirlockBench {
    /// `airlock-bench qr-decode DIR`: decodes every PNG in a directory, for comparison with `zbarimg`.
    struct QRDecode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-decode",
            abstract: "Decode every PNG in DIR with QRImage (concurrently) and report files, codes and frames/s."
        )

        @Argument(help: "A directory of PNG files.") var directory: String
        @Option(help: "Worker threads (default: active processors).") var workers: Int?
        @Option(name: .customLong("repeat"), help: "Times to decode the whole directory; the best run is reported.")
        var runs: Int = 1
        @Flag(help: "Print one JSON object on stdout.") var json = false
        @Flag(help: "Also join every code into the payload (PayloadDecoder), as a user's import does.") var join = false

        func validate() throws {
            if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
            if runs < 1 { throw ValidationError("--repeat must be at least 1") }
        }

        func run() throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.lowercased().hasSuffix(".png") }.sorted()
            let paths = names.map { (directory as NSString).appendingPathComponent($0) }
            var best = Double.infinity
            var results: [QRReader.FileResult] = []
            var payloadBytes = 0
            for _ in 0..<runs {
                let start = ContinuousClock.now
                results = QRReader.readFiles(atPaths: paths, workers: workers)
                if join {
                    var decoder = PayloadDecoder()
                    for file in results {
                        if case .success(let found) = file.result {
                            for code in found { try decoder.receive(bytes: code.bytes) }
                        }
                    }
                    let (payload, _) = try decoder.result()
                    payloadBytes = Self.size(of: payload)
                }
                let elapsed = start.duration(to: .now)
                best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
            var codes = 0
            var failures = 0
            for file in results {
                switch file.result {
                case .success(let found): codes += found.count
                case .failure(let error):
                    failures += 1
                    FileHandle.standardError.write(Data("qr-decode: \(file.path): \(error)\n".utf8))
                }
            }
            let rate = best > 0 ? Double(paths.count) / best : 0
            if json {
                let object: [String: Any] = [
                    "benchmark": "qr-decode", "files": paths.count, "codes": codes, "failures": failures,
                    "joined_payload_bytes": payloadBytes,
                    "seconds": best, "frames_per_second": rate,
                    "workers": workers ?? ProcessInfo.processInfo.activeProcessorCount,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(
                    "files: \(paths.count)  codes: \(codes)  failures: \(failures)  joined payload: \(payloadBytes) B")
                print(String(format: "time: %.3f s  rate: %.1f frames/s", best, rate))
            }
            if failures > 0 { throw ExitCode(2) }
        }

        static func size(of payload: Payload) -> Int {
            switch payload {
            case .psbt(let b), .bytes(let b), .transaction(let b): b.count
            case .text(let t), .descriptor(let t), .json(let t): t.utf8.count
            default: 0
            }
        }
    }

    /// `airlock-bench qr-frames DIR`: writes UR-like QR frames with QRImage's renderer, the input of `qr-decode`.
    struct QRFrames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-frames",
            abstract: "Write COUNT QR PNGs of UR-style text frames (upper-case, PAYLOAD bytes each) into DIR."
        )

        @Argument(help: "The output directory (created if missing).") var directory: String
        @Option(help: "Number of frames.") var count: Int = 100
        @Option(help: "Payload bytes per frame (each drawn as two letters, like bytewords minimal).") var payload: Int =
            400
        @Option(help: "Pixels per module.") var moduleSize: Int = QRCode.defaultModuleSize
        @Flag(help: "Write all frames into one captioned sheet, DIR/sheet.png, instead of one PNG each.") var sheet =
            false
        @Flag(help: "Write real ur:crypto-psbt frames (FrameEncoder) of a random COUNT×PAYLOAD-byte PSBT body.")
        var ur = false

        func validate() throws {
            if count < 1 || count > 9_999 { throw ValidationError("--count must be 1...9999") }
            if payload < 1 || payload > 1_400 { throw ValidationError("--payload must be 1...1400") }
        }

        func run() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            var generator = SystemRandomNumberGenerator()
            var codes: [QRCode] = []
            var texts: [String] = []
            if ur {
                // A PSBT-shaped body: magic, then random bytes; CBOR adds a few bytes, so the last frame is short.
                let body: [UInt8] =
                    [0x70, 0x73, 0x62, 0x74, 0xFF]
                    + (0..<(count * payload - 10)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                texts = try FrameEncoder(urMaxFragmentLength: payload, urExtraParts: 0).frames(
                    for: .psbt(body), format: .ur)
            } else {
                texts = (1...count).map { index in
                    let body = String(
                        (0..<(2 * payload)).map { _ in letters[Int.random(in: 0..<26, using: &generator)] })
                    return "UR:CRYPTO-PSBT/\(index)-\(count)/\(body)"
                }
            }
            for (offset, text) in texts.enumerated() {
                let index = offset + 1
                let code = try QRCode(text: text)
                if sheet {
                    codes.append(code)
                    continue
                }
                let name = String(format: "frame-%04d.png", index)
                try Data(code.pngData(moduleSize: moduleSize)).write(
                    to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            }
            if sheet {
                let png = try QRSheet(codes: codes).pngData(moduleSize: moduleSize)
                try Data(png).write(to: URL(fileURLWithPath: directory).appendingPathComponent("sheet.png"))
            }
            print("wrote \(texts.count) frames to \(directory)\(sheet ? "/sheet.png" : "")")
        }
    }
}
