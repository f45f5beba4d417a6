import AirgapTransport
import ArgumentParser
import Bitcoin
import Foundation
import Signer

extension AirlockBench {
    /// `airlock-bench qr-psbt-frames`: how many QR frames a signed PSBT needs with Airlock's defaults (the signer's
    /// trimmed output, UR at the default fragment length) against UR at 400 B/frame carrying the full PSBT.
    struct QRPSBTFrames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr-psbt-frames",
            abstract: "Count the QR frames of a signed N-input P2WPKH PSBT: Airlock's trimmed default vs the full PSBT."
        )

        @Option(help: "Inputs of the PSBT.") var inputs: Int = 100
        @Flag(help: "Print one JSON object on stdout.") var json = false

        func validate() throws {
            if inputs < 1 || inputs > 5_000 { throw ValidationError("--inputs must be 1...5000") }
        }

        func run() throws {
            let master = try ExtendedPrivateKey(
                seed: try Mnemonic(phrase: PSBTBench.mnemonic).seed(), network: .regtest)
            // Coins from 10 funding transactions, carried whole as non-witness UTXOs, as a coordinator sends them.
            let unsigned = try PSBTBench.psbt(master, kind: "wpkh", path: "84h/1h/0h", inputs: inputs, funding: 10)
            let signed = try PSBTSigner().sign(unsigned, with: SeedKeyProvider(master: master)).psbt
            let full = signed.serialized()
            let trimmed = signed.trimmedForCoordinator().serialized()
            let defaults = try FrameEncoder(urExtraParts: 0).frames(for: .psbt(trimmed), format: .ur).count
            let fullAt400 = try FrameEncoder(urMaxFragmentLength: 400, urExtraParts: 0).frames(
                for: .psbt(full), format: .ur
            )
            .count
            let unsignedAt400 = try FrameEncoder(urMaxFragmentLength: 400, urExtraParts: 0)
                .frames(for: .psbt(unsigned.serialized()), format: .ur).count
            if json {
                let object: [String: Any] = [
                    "benchmark": "qr-psbt-frames", "inputs": inputs, "unsigned_bytes": unsigned.serialized().count,
                    "unsigned_frames_ur400": unsignedAt400, "signed_full_bytes": full.count,
                    "signed_full_frames_ur400": fullAt400, "signed_trimmed_bytes": trimmed.count,
                    "signed_trimmed_frames_default": defaults,
                    "default_fragment_length": FrameEncoder.defaultURFragmentLength,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(
                    "unsigned PSBT (\(inputs) inputs): \(unsigned.serialized().count) B, \(unsignedAt400) UR frames at 400 B"
                )
                print("signed, full PSBT: \(full.count) B, \(fullAt400) UR frames at 400 B")
                print(
                    "signed, Airlock default (trimmed, UR \(FrameEncoder.defaultURFragmentLength) B): \(trimmed.count) B, \(defaults) frames"
                )
            }
        }
    }
}
