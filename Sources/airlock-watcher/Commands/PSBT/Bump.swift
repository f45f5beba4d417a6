import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher bump TXID --fee-rate N`: a replace-by-fee PSBT for an unconfirmed wallet transaction;
/// `bump --cpfp TXID --fee-rate N`: a child that pays for it.
struct Bump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump",
        abstract: "Build a replacement (RBF) of an unconfirmed transaction, or a child paying for it (CPFP).",
        discussion: """
            The replacement spends the same coins and pays the same recipients; the extra fee comes out of the \
            change, and confirmed coins are added when the change cannot pay it. The original must signal RBF \
            (sent without --no-rbf). Sign and broadcast the new PSBT like any other; --qr writes BBQr frames as send \
            does (--qr-format ur for Sparrow-style UR).

            With --cpfp TXID the PSBT is a child instead: it spends the parent's largest wallet output (adding \
            confirmed coins when that cannot pay) back to the wallet, with a fee that brings the package (parent \
            and child) to --fee-rate. The parent's fee must be known to the wallet (a transaction it sent).

            Examples:
              airlock-watcher bump 5f3c...e1 --fee-rate 10 --out bump.psbt
              airlock-watcher bump --cpfp 5f3c...e1 --fee-rate 10 --out child.psbt
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The txid of the unconfirmed wallet transaction to replace.")
    var txid: String?

    @Option(help: "Instead of replacing: the txid of an unconfirmed parent to pay for with a child (CPFP).")
    var cpfp: String?

    @Option(help: "The new fee rate in sat/vB (up to 3 decimals).")
    var feeRate: String

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (txid == nil) != (cpfp == nil) else {
            throw ValidationError("name the transaction to replace (bump TXID) or to pay for (bump --cpfp TXID)")
        }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let given = txid ?? cpfp ?? ""
            let id: Txid
            do { id = try Txid(hex: given) } catch { throw CLIError(.invalidInput, "invalid txid '\(given)'") }
            let rate: FeeRate
            do { rate = try FeeRate(string: feeRate) } catch {
                throw CLIError(.invalidInput, "invalid --fee-rate: \(error)")
            }
            let context = try WatcherContext(global)
            let report = try BumpFlow(store: context.store, wallet: try context.wallet()).run(
                id, feeRate: rate, childPays: cpfp != nil)
            let written = try PSBTFiles.write(
                report.psbt, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
            } else {
                report.lines.forEach(Diagnostics.print)
                OutputOptions.printWritten(written)
            }
        }
    }
}
