import AirgapTransport
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// Reading and writing PSBTs for `send`, `combine`, `finalize`, `broadcast` and `bump`.
enum PSBTFiles {
    /// One PSBT from `arguments` (a file, `-`, or PNG images of its QR codes), through CLISupport.InputReader.
    static func read(_ arguments: [String]) throws -> PSBT {
        let input = try InputReader.read(arguments, expecting: [.psbt])
        guard case .psbt(let bytes) = input.payload else {
            throw CLIError(
                .invalidInput, "\(arguments.joined(separator: " ")) holds a \(input.payload.kind.rawValue), not a PSBT")
        }
        do { return try PSBT(serialized: bytes) } catch {
            throw CLIError(.invalidInput, "\(arguments.joined(separator: " ")): not a valid PSBT: \(error)")
        }
    }

    /// The QR framing of a request for the signer (`send`, `bump`) when `--qr-format` is not given: BBQr with zlib,
    /// which Airlock's signer reads and answers in, in far fewer frames than UR (docs/benchmarks.md, frames);
    /// `--qr-format ur` gives the `ur:crypto-psbt` frames Sparrow, Keystone and SeedSigner read.
    static let requestFormat = QRFormatOption.bbqr

    /// Writes `psbt` to the requested outputs, or as base64 on stdout when none was given (and not `--json`).
    ///
    /// - Parameters:
    ///   - psbt: the PSBT.
    ///   - options: the command's output options.
    ///   - json: whether stdout holds the `--json` document.
    ///   - preferredFormat: the QR framing when `--qr-format` is not given (nil: UR).
    /// - Returns: the paths written.
    /// - Throws: `CLIError` from `OutputOptions.write`.
    @discardableResult
    static func write(
        _ psbt: PSBT, options: OutputOptions, json: Bool, preferredFormat: QRFormatOption? = nil
    ) throws -> [String] {
        let bytes = psbt.serialized()
        if !options.isRequested {
            if !json { print(psbt.base64String) }
            return []
        }
        return try options.write(.psbt(bytes), fileBytes: bytes, json: json, preferredFormat: preferredFormat)
    }
}
