import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher bump TXID --fee-rate N`: a replace-by-fee PSBT for an unconfirmed wallet transaction.
struct Bump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a replacement (RBF, BIP125) of an unconfirmed transaction at a higher fee rate.",
        discussion: """
            The replacement spends the same coins and pays the same recipients; the extra fee comes out of the \
            change, and confirmed coins are added when the change cannot pay it. The original must signal RBF \
            (sent without --no-rbf). Sign and broadcast the new PSBT like any other.

            Examples:
              airlock-watcher bump 5f3c...e1 --fee-rate 10 --out bump.psbt
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The txid of the unconfirmed wallet transaction.")
    var txid: String

    @Option(help: "The new fee rate in sat/vB (up to 3 decimals).")
    var feeRate: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ErrorReporting.run {
            let id: Txid
            do { id = try Txid(hex: txid) } catch { throw CLIError(.invalidInput, "invalid txid '\(txid)'") }
            let rate: FeeRate
            do { rate = try FeeRate(string: feeRate) } catch {
                throw CLIError(.invalidInput, "invalid --fee-rate: \(error)")
            }
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let (plan, original) = try FeeBumper(store: context.store, wallet: wallet).plan(
                replacing: id, feeRate: rate)
            let psbt = try plan.psbt(account: try Account(record: wallet))
            try PSBTArchive(store: context.store).save(psbt)
            let written = try PSBTFiles.write(psbt, options: output, json: global.json)
            let tx = plan.transaction
            let inputVSize = try SpendPlanner(store: context.store, wallet: wallet).inputVSize
            let vsize = tx.vsize + plan.inputs.count * (inputVSize - 41)
            let changeScripts: Set<Script> = plan.change.map { [plan.outputs[$0.position].scriptPubKey] } ?? []
            let summary = PSBTFiles.summary(
                tx, fee: plan.fee.sats, vsize: vsize, network: wallet.network, own: changeScripts)
            if global.json {
                try JSONOutput.print(
                    BumpJSON(
                        summary: summary.json, txid: tx.txid.hexString, replaces: id.hexString,
                        originalFee: original.fee.sats, psbt: psbt.base64String, written: written,
                        inputs: plan.inputs.map { $0.utxo.outpoint.description }))
            } else {
                Diagnostics.print(
                    "replacement \(tx.txid.hexString) for \(id.hexString) (fee was \(btc(original.fee.sats)) BTC, \(original.feeRate))"
                )
                for line in summary.lines { Diagnostics.print(line) }
                for path in written { Diagnostics.print("wrote \(path)") }
            }
        }
    }
}
