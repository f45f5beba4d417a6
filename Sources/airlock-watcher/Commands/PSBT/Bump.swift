import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

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
            let wallet = try context.wallet()
            if cpfp != nil {
                try payForParent(id, rate: rate, context: context, wallet: wallet)
                return
            }
            let (plan, original) = try FeeBumper(store: context.store, wallet: wallet).plan(
                replacing: id, feeRate: rate)
            let psbt = try plan.psbt(account: try Account(record: wallet))
            try PSBTArchive(store: context.store).save(psbt)
            let written = try PSBTFiles.write(
                psbt, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
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
                        inputs: plan.inputs.map { $0.utxo.outpoint.description }), files: written)
            } else {
                Diagnostics.print(
                    "replacement \(tx.txid.hexString) for \(id.hexString) (fee was \(btc(original.fee.sats)) BTC, \(original.feeRate))"
                )
                for line in summary.lines { Diagnostics.print(line) }
                OutputOptions.printWritten(written)
            }
        }
    }
}

extension Bump {
    /// `--json` of `bump --cpfp`.
    struct ChildReport: Encodable {
        let txid: String
        let parent: String
        let parentFee: UInt64
        let parentVsize: Int
        let fee: UInt64
        let vsize: Int
        let packageFeeRate: Double
        let inputs: [String]
        let outputs: [PSBTOutputLine]
        let psbt: String
        let written: [String]

        enum CodingKeys: String, CodingKey {
            case txid, parent, fee, vsize, inputs, outputs, psbt, written
            case parentFee = "parent_fee"
            case parentVsize = "parent_vsize"
            case packageFeeRate = "package_fee_rate"
        }
    }

    struct PSBTOutputLine: Encodable {
        let address: String?
        let amount: UInt64
    }

    func payForParent(_ parent: Txid, rate: FeeRate, context: WatcherContext, wallet: WalletRecord) throws {
        let result = try ChildPaysForParent(store: context.store, wallet: wallet).plan(parent: parent, feeRate: rate)
        let plan = result.plan
        let psbt = try plan.psbt(account: try Account(record: wallet))
        try PSBTArchive(store: context.store).save(psbt)
        let written = try PSBTFiles.write(
            psbt, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
        let tx = plan.transaction
        let packageRate = (result.packageRate * 100).rounded() / 100
        if global.json {
            try JSONOutput.print(
                ChildReport(
                    txid: tx.txid.hexString, parent: parent.hexString, parentFee: result.parent.fee.sats,
                    parentVsize: result.parent.vsize, fee: plan.fee.sats, vsize: result.childVSize,
                    packageFeeRate: packageRate, inputs: plan.inputs.map { $0.utxo.outpoint.description },
                    outputs: tx.outputs.map {
                        PSBTOutputLine(
                            address: (try? Address(scriptPubKey: $0.scriptPubKey, network: wallet.network))?
                                .description,
                            amount: $0.value.sats)
                    },
                    psbt: psbt.base64String, written: written), files: written)
        } else {
            Diagnostics.print(
                "child \(tx.txid.hexString) pays for \(parent.hexString) (fee \(btc(result.parent.fee.sats)) BTC, "
                    + "\(result.parent.vsize) vB, \(result.parent.feeRate))")
            Diagnostics.print(
                "child fee \(btc(plan.fee.sats)) BTC (~\(result.childVSize) vB); package \(packageRate) sat/vB")
            OutputOptions.printWritten(written)
        }
    }
}
