import AirgapTransport
import ArgumentParser
import Bitcoin
import Foundation
import QRImage
import SeedBackup
import SignToContract
import Signer

extension AirlockBench {
    /// `airlock-bench qr-psbt-frames`: the frame economy of issue 18 item 3, both directions of an N-input PSBT.
    ///
    /// Baseline (what Sparrow does): the full PSBT as UR at 400-byte fragments. Its QR version V is measured by
    /// encoding every baseline frame with libqrencode (level L). Airlock's choice at the same version V: the request
    /// (the watcher's `send`, every input with its previous transaction) as BBQr with zlib (`Z`) in codes of at most
    /// version V; the answer (the signer's trimmed PSBT) in the framing the request came in. UR with fragments fitted
    /// to version V is counted too (the Sparrow-compatible path). Every Airlock series is decoded back by
    /// `PayloadDecoder` and compared byte for byte; every frame is encoded and its version checked to be at most V.
    struct QRPSBTFrames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-psbt-frames",
            abstract:
                "Count the QR frames of an N-input PSBT both ways (request, signed answer): Airlock's choice vs UR at "
                + "400-byte fragments of the full PSBT, at the baseline's QR version."
        )

        @Option(help: "Inputs of the PSBT.") var inputs: Int = 100
        @Flag(help: "Print one JSON object on stdout.") var json = false
        @Option(
            help: ArgumentHelp(
                "Also write DIR/request.psbt, DIR/answer.psbt (the bytes Airlock frames) and each series as one part "
                    + "per line: DIR/{request,answer}-{baseline,airlock,ur}.txt, for a peer to check.",
                valueName: "DIR"))
        var writeFrames: String?

        func validate() throws {
            if inputs < 1 || inputs > 5_000 { throw ValidationError("--inputs must be 1...5000") }
        }

        /// One direction's figures.
        struct Direction {
            let name: String
            let baselineBytes: Int
            let baselineFrames: Int
            let version: Int
            let airlockBytes: Int
            let airlockFrames: Int
            let airlockFormat: String
            let urFittedFrames: Int
            let urFittedFragment: Int
            let base32Frames: Int

            var saving: Double { 1 - Double(airlockFrames) / Double(baselineFrames) }

            var object: [String: Any] {
                [
                    "baseline_bytes": baselineBytes, "baseline_frames_ur400": baselineFrames, "qr_version": version,
                    "airlock_bytes": airlockBytes, "airlock_frames": airlockFrames, "airlock_format": airlockFormat,
                    "ur_fitted_frames": urFittedFrames, "ur_fitted_fragment_length": urFittedFragment,
                    "fewer_frames_percent": (saving * 1000).rounded() / 10, "bbqr_base32_frames": base32Frames,
                ]
            }
        }

        func run() throws {
            let master = try ExtendedPrivateKey(
                seed: try Mnemonic(phrase: PSBTBench.mnemonic).seed(), network: .regtest)
            // Coins from 10 funding transactions, carried whole as non-witness UTXOs, as the watcher sends them.
            let unsigned = try PSBTBench.psbt(master, kind: "wpkh", path: "84h/1h/0h", inputs: inputs, funding: 10)
            let signed = try PSBTSigner().sign(unsigned, with: SeedKeyProvider(master: master)).psbt
            let request = try measure(
                "request", full: unsigned.serialized(), airlock: unsigned.serialized())
            let answer = try measure(
                "answer", full: signed.serialized(), airlock: signed.trimmedForCoordinator().serialized())
            let antiExfil = try antiExfilRounds(unsigned, master: master)
            if json {
                let object: [String: Any] = [
                    "benchmark": "qr-psbt-frames", "inputs": inputs, "request": request.object,
                    "answer": answer.object, "anti_exfil": antiExfil,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            print("anti-exfil, Airlock's frames per hand-over at the baseline's QR version: \(antiExfil)")
            for d in [request, answer] {
                print(
                    "\(d.name): baseline UR 400 B of the full PSBT (\(d.baselineBytes) B): \(d.baselineFrames) frames, "
                        + "QR version \(d.version); Airlock \(d.airlockFormat) of \(d.airlockBytes) B at version <= "
                        + "\(d.version): \(d.airlockFrames) frames (\(String(format: "%.1f", d.saving * 100))% fewer); "
                        + "without zlib (BBQr 2): \(d.base32Frames); UR fitted (\(d.urFittedFragment) B) of the same "
                        + "bytes: \(d.urFittedFrames) frames")
            }
        }

        /// The four hand-overs of an anti-exfil signing (issue 30: `send --anti-exfil`, the signer's commitments, the
        /// watcher's reveal, the signed answer) in Airlock's framing (BBQr with zlib) at the baseline's QR version,
        /// each decoded back; the plain exchange's two for comparison.
        func antiExfilRounds(_ unsigned: PSBT, master: ExtendedPrivateKey) throws -> [String: Int] {
            var request = unsigned
            var session = try AntiExfilSession.begin(&request)
            let provider = SeedKeyProvider(master: master)
            let commitments = try PSBTSigner().sign(request, with: provider).psbt
            let reveal = try session.reveal(commitments).psbt
            let signed = try PSBTSigner().sign(reveal, with: provider).psbt
            guard try session.verify(signed) == session.keyCount else {
                throw ValidationError("anti-exfil: not every signature was checked")
            }
            let baseline = try FrameEncoder(urMaxFragmentLength: 400, urExtraParts: 0).frames(
                for: .psbt(unsigned.serialized()), format: .ur)
            let encoder = FrameEncoder(qrVersion: try maxVersion(baseline), urExtraParts: 0)
            func count(_ psbt: PSBT) throws -> Int {
                let frames = try encoder.frames(for: .psbt(psbt.serialized()), format: .bbqr)
                try checkDecodes(frames, to: psbt.serialized())
                return frames.count
            }
            let plain = try PSBTSigner().sign(unsigned, with: provider).psbt.trimmedForCoordinator()
            return [
                "round1_request": try count(request), "round1_answer": try count(commitments),
                "round2_request": try count(reveal), "round2_answer": try count(signed.trimmedForCoordinator()),
                "plain_request": try count(unsigned), "plain_answer": try count(plain),
            ]
        }

        /// Writes one direction's bytes and series under `--write-frames`.
        func write(_ name: String, _ series: [(String, [String])], bytes: [UInt8]) throws {
            guard let directory = writeFrames else { return }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let base = URL(fileURLWithPath: directory)
            try Data(bytes).write(to: base.appendingPathComponent("\(name).psbt"))
            for (kind, frames) in series {
                try Data((frames.joined(separator: "\n") + "\n").utf8).write(
                    to: base.appendingPathComponent("\(name)-\(kind).txt"))
            }
        }

        /// Baseline frames of `full`, Airlock's frames of `airlock` at the baseline's version, both decoded back.
        func measure(_ name: String, full: [UInt8], airlock: [UInt8]) throws -> Direction {
            let baseline = try FrameEncoder(urMaxFragmentLength: 400, urExtraParts: 0).frames(
                for: .psbt(full), format: .ur)
            try checkDecodes(baseline, to: full)
            let version = try maxVersion(baseline)
            let encoder = FrameEncoder(qrVersion: version, urExtraParts: 0)
            let bbqr = try encoder.frames(for: .psbt(airlock), format: .bbqr)
            try checkDecodes(bbqr, to: airlock)
            let ur = try encoder.frames(for: .psbt(airlock), format: .ur)
            try checkDecodes(ur, to: airlock)
            var plain = encoder
            plain.bbqr.encoding = .base32
            let base32 = try plain.frames(for: .psbt(airlock), format: .bbqr)
            try checkDecodes(base32, to: airlock)
            for frames in [bbqr, ur, base32] where try maxVersion(frames) > version {
                throw ValidationError("\(name): a frame needs a QR version above the baseline's \(version)")
            }
            try write(name, [("baseline", baseline), ("airlock", bbqr), ("ur", ur)], bytes: airlock)
            return Direction(
                name: name, baselineBytes: full.count, baselineFrames: baseline.count, version: version,
                airlockBytes: airlock.count, airlockFrames: bbqr.count,
                airlockFormat: "BBQr " + String(bbqr[0].dropFirst(2).prefix(1)), urFittedFrames: ur.count,
                urFittedFragment: encoder.urMaxFragmentLength, base32Frames: base32.count)
        }

        /// The largest QR version (level L, as libqrencode encodes the text) among `frames`.
        func maxVersion(_ frames: [String]) throws -> Int {
            try frames.map { try QRCode(text: $0).version }.max() ?? 0
        }

        func checkDecodes(_ frames: [String], to bytes: [UInt8]) throws {
            let (payload, _) = try PayloadDecoder.decode(frames.shuffled(), expecting: [.psbt])
            guard payload == .psbt(bytes) else { throw ValidationError("frames decode to other bytes") }
        }
    }
}
