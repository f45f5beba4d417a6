import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher finalize IN`: the BIP174 Finalizer.
struct Finalize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "finalize",
        abstract: "Finalize a signed PSBT (final scriptSig and witness for every input).",
        discussion: """
            IN is a file, - for stdin, or PNG images of the PSBT's QR codes. A trimmed (signatures-only) PSBT is \
            first combined with the PSBT this watcher created. The finalized PSBT goes to --out/--qr, else as base64 \
            to stdout; --json adds the signed transaction in hex.

            Examples:
              airlock-watcher finalize signed.psbt --out final.psbt
              airlock-watcher finalize signed-frames/ --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The signed PSBT: a file, '-', or PNG images (or a directory of them).")
    var input: [String]

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let finalizer = PSBTFinalizer(store: context.store, wallet: try? context.wallet())
            let report = try FinalizeReport(try PSBTFiles.read(input), finalizer: finalizer)
            let written = try PSBTFiles.write(report.psbt, options: output, json: global.json)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
            } else {
                Diagnostics.print(report.line)
                OutputOptions.printWritten(written)
            }
        }
    }
}
