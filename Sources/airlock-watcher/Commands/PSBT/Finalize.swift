import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import SignToContract
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

            Anti-exfil (send --anti-exfil): given the signer's first answer (its nonce commitments, no signature), \
            finalize records the commitments and writes the PSBT with this watcher's entropy revealed, to take back \
            to the signer; given the signed answer, it checks every signature against its commitment and refuses \
            (exit 4) one that does not match.

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
            let psbt = try PSBTFiles.read(input)
            if try revealAntiExfil(psbt, context: context) { return }
            let report = try FinalizeReport(psbt, finalizer: finalizer)
            let written = try PSBTFiles.write(report.psbt, options: output, json: global.json)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
            } else {
                Diagnostics.print(report.line)
                OutputOptions.printWritten(written)
            }
        }
    }

    /// The signer's first anti-exfil answer: writes the PSBT with the entropy revealed; false for any other PSBT.
    private func revealAntiExfil(_ psbt: PSBT, context: WatcherContext) throws -> Bool {
        guard case .reveal(let revealed, let keys, let retry) = try AntiExfilKeeper(store: context.store).step(psbt)
        else { return false }
        let written = try PSBTFiles.write(
            revealed, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
        if global.json {
            try JSONOutput.print(
                AntiExfilRevealJSON(keys: keys, retry: retry, psbt: revealed, written: written), files: written)
        } else {
            AntiExfilKeeper.revealLines(keys: keys, retry: retry).forEach(Diagnostics.print)
            OutputOptions.printWritten(written)
        }
        return true
    }
}
