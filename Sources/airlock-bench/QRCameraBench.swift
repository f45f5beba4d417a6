import AirgapTransport
import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Foundation
import QRImage
import SeedBackup

extension AirlockBench {
    /// `airlock-bench qr-camera-frames DIR`: camera frames of an animated UR (CameraScene), the input of
    /// `qr-camera-decode`, zbarimg and the video row.
    struct QRCameraFrames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-camera-frames",
            abstract:
                "Write COUNT 1280x720 gray camera frames (PGM) of a phone showing an animated ur:crypto-psbt, one "
                + "version-17 part each, with perspective, blur, glare, vignetting and sensor noise from a fixed seed."
        )

        @Argument(help: "The output directory (created if missing).") var directory: String
        @Option(help: "Frames, one UR part each (the PSBT's inputs grow with it).") var count: Int = 100
        @Option(help: "The seed of every random draw (poses, noise).") var seed: UInt64 = 33

        func validate() throws {
            if count < 2 || count > 1_000 { throw ValidationError("--count must be 2...1000") }
        }

        func run() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let (psbt, texts) = try Self.parts(count: count)
            let codes = try texts.map { try QRCode(text: $0) }
            let versions = Set(codes.map(\.version))
            guard versions == [17] else { throw ValidationError("the parts are QR versions \(versions.sorted())") }
            let poses = CameraScene.poses(count: count, seed: seed)
            // Rendered two at a time (one frame per worker), each from its own seeded generator.
            let lock = NSLock()
            nonisolated(unsafe) var rendered = [[UInt8]](repeating: [], count: count)
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let scene = CameraScene(
                    code: codes[index], index: index + 1, count: count, pose: poses[index], seed: seed)
                let pixels = scene.render()
                lock.lock()
                rendered[index] = pixels
                lock.unlock()
            }
            let frames = rendered
            var digest = SHA256()
            for (index, pixels) in frames.enumerated() {
                let header = Array("P5\n\(CameraScene.width) \(CameraScene.height)\n255\n".utf8)
                pixels.withUnsafeBytes { digest.update($0) }
                let name = String(format: "frame-%04d.pgm", index + 1)
                try Data(header + pixels).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            }
            try Data(psbt).write(to: URL(fileURLWithPath: directory).appendingPathComponent("payload.psbt"))
            try Data((texts.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: directory).appendingPathComponent("parts.txt"))
            let hash = digest.finalize().map { String(format: "%02x", $0) }.joined()
            print(
                "wrote \(count) frames (\(CameraScene.width)x\(CameraScene.height), version 17, \(psbt.count)-byte PSBT "
                    + "in \(texts.count) UR parts of \(texts[0].count) characters) to \(directory); pixels sha256 "
                    + String(hash.prefix(16)))
        }

        /// A real PSBT (P2WPKH inputs from 10 funding transactions, as the watcher sends them) just large enough for
        /// `count` UR parts in version-17 codes (fragments of 400–470 bytes), and its part texts (no fountain extras).
        static func parts(count: Int) throws -> ([UInt8], [String]) {
            let master = try ExtendedPrivateKey(
                seed: try Mnemonic(phrase: PSBTBench.mnemonic).seed(), network: .regtest)
            func texts(_ psbt: [UInt8], _ fragment: Int) throws -> [String] {
                try FrameEncoder(urMaxFragmentLength: fragment, urExtraParts: 0).frames(for: .psbt(psbt), format: .ur)
            }
            for inputs in (count / 2)...(count * 2) {
                let psbt = try PSBTBench.psbt(master, kind: "wpkh", path: "84h/1h/0h", inputs: inputs, funding: 10)
                    .serialized()
                guard try texts(psbt, 400).count >= count else { continue }
                for fragment in 400...470 {
                    let parts = try texts(psbt, fragment)
                    if parts.count == count, try QRCode(text: parts[0]).version == 17 { return (psbt, parts) }
                }
            }
            throw ValidationError("no PSBT makes exactly \(count) parts of about 400 bytes")
        }
    }

    /// `airlock-bench qr-camera-decode DIR`: decodes the camera frames one by one on one thread, timing each.
    struct QRCameraDecode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-camera-decode",
            abstract:
                "Decode every frame-*.pgm of DIR with QRReader.read(gray:) on one thread, check each against "
                + "DIR/parts.txt, and report the time per frame (median over the frames, then over the runs)."
        )

        @Argument(help: "A directory written by qr-camera-frames.") var directory: String
        @Option(name: .customLong("repeat"), help: "Timed passes over all frames.") var runs: Int = 5
        @Flag(help: "Print one JSON object on stdout.") var json = false
        @Flag(help: "Scan each whole frame at once (busyRegionsFirst: false), as before issue 33.") var wholeFrame =
            false
        @Option(help: "Decode only the first N frames (for profiles).") var limit: Int?
        @Flag(help: "Print each frame's busy regions and the code's bounds as JSON lines instead of timing.")
        var regions = false

        func validate() throws {
            if runs < 1 { throw ValidationError("--repeat must be at least 1") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() throws {
            var frames = try Self.load(directory)
            var parts = try String(contentsOfFile: directory + "/parts.txt", encoding: .utf8)
                .split(separator: "\n").map(String.init)
            guard parts.count == frames.count else {
                throw ValidationError("\(frames.count) frames but \(parts.count) parts")
            }
            if let limit { (frames, parts) = (Array(frames.prefix(limit)), Array(parts.prefix(limit))) }
            let reader = try QRReader(maxPixels: 7_680 * 4_320)
            if regions { return try Self.printRegions(frames, reader: reader) }
            var medians: [Double] = []
            var totals: [Double] = []
            var failures = 0
            var worst = 0.0
            for _ in 0..<runs {
                var times: [Double] = []
                failures = 0
                for (frame, part) in zip(frames, parts) {
                    let start = ContinuousClock.now
                    let found = try? reader.read(
                        gray: frame.pixels, width: frame.width, height: frame.height, busyRegionsFirst: !wholeFrame)
                    times.append(Self.milliseconds(start.duration(to: .now)))
                    if found?.first.map({ String(decoding: $0.bytes, as: UTF8.self) }) != part { failures += 1 }
                }
                medians.append(Self.median(times))
                totals.append(times.reduce(0, +))
                worst = max(worst, times.max() ?? 0)
            }
            let perFrame = Self.median(medians)
            let total = Self.median(totals)
            if json {
                let object: [String: Any] = [
                    "benchmark": "qr-camera-decode", "whole_frame": wholeFrame, "frames": frames.count,
                    "failures": failures, "runs": runs,
                    "median_frame_ms": perFrame, "run_medians_ms": medians, "median_total_ms": total,
                    "max_frame_ms": worst,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("frames: \(frames.count)  failures: \(failures)  runs: \(runs)")
                print(
                    String(
                        format: "per frame: median %.2f ms, slowest %.2f ms; all frames %.1f ms", perFrame, worst, total
                    ))
            }
            if failures > 0 { throw ExitCode(2) }
        }

        /// One JSON line a frame: the boxes the reader scans first, and the bounds of the code it reads.
        static func printRegions(_ frames: [Frame], reader: QRReader) throws {
            for (index, frame) in frames.enumerated() {
                let boxes = QRReader.busyRegions(gray: frame.pixels, width: frame.width, height: frame.height)
                let code = try? reader.read(gray: frame.pixels, width: frame.width, height: frame.height).first?.bounds
                func box(_ bounds: QRBounds) -> [Int] { [bounds.x, bounds.y, bounds.width, bounds.height] }
                let object: [String: Any] = [
                    "frame": index + 1, "regions": boxes.map(box), "code": code.map(box) ?? NSNull(),
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            }
        }

        struct Frame {
            let width: Int
            let height: Int
            let pixels: [UInt8]
        }

        /// The frame-*.pgm files of `directory` (binary PGM, 8-bit), in name order.
        static func load(_ directory: String) throws -> [Frame] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasPrefix("frame-") && $0.hasSuffix(".pgm") }.sorted()
            return try names.map { name in
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                // "P5\nW H\n255\n": three whitespace-separated numbers after the magic, then one whitespace.
                var fields: [Int] = []
                var position = 2
                while fields.count < 3, position < bytes.count {
                    while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A { position += 1 }
                    var value = 0
                    while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                        value = value * 10 + Int(bytes[position] - 0x30)
                        position += 1
                    }
                    fields.append(value)
                }
                position += 1
                guard bytes.starts(with: Array("P5".utf8)), fields.count == 3, fields[2] == 255,
                    bytes.count - position == fields[0] * fields[1]
                else { throw ValidationError("\(name) is not an 8-bit binary PGM") }
                return Frame(width: fields[0], height: fields[1], pixels: Array(bytes[position...]))
            }
        }

        static func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) * 1e-15
        }

        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
    }
}
