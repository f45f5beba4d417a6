import ArgumentParser
import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher

/// `airlock-watcher send`: plans the payment (coin selection, change, locktime, RBF) and writes it as an unsigned v0
/// PSBT, which it also keeps in the data directory to combine with the signer's (possibly trimmed) answer.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Build an unsigned transaction paying one or more addresses.",
        discussion: """
            AMT is 0.001btc, 100000sat, or a plain number of BTC. Coins are chosen by branch and bound (no change \
            when possible), else by single random draw with change to the next change address. RBF is on unless
            --no-rbf; the locktime is set against fee sniping. The unsigned PSBT goes to --out (binary), --qr \
            (BBQr frames with zlib, which airlock-signer reads; --qr-format ur for Sparrow-style ur:crypto-psbt), \
            --terminal, or as base64 to stdout; a summary goes to stderr (or --json).

            A miniscript policy wallet (wsh(MINISCRIPT), or tr() with miniscript leaves) spends on its primary \
            path (no timelock). --recovery takes a path that needs a timelock: the one of the keys named by --keys \
            FINGERPRINT,… or else of the fewest keys that can spend only with a timelock (the earliest first; in a \
            tr() wallet over every leaf, then the leaf order); nSequence and nLockTime are set from that path \
            (docs/miniscript.md). The PSBT is written even before the coins are old enough; stderr \
            (and --json's recovery object) says from which height the node accepts it.

            Examples:
              airlock-watcher send --to bcrt1q... --amount 0.001btc --fee-rate 2 --qr unsigned.png
              airlock-watcher send --to bcrt1q... --max --target-blocks 6 --out unsigned.psbt --json
              airlock-watcher send --to bcrt1q... --amount 100000sat --fee-rate 2 --dry-run
              airlock-watcher send --to bcrt1q... --max --fee-rate 2 --recovery --keys 1a2b3c4d --out recovery.psbt
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("to"), help: "A recipient address (repeat for several).")
    var recipients: [String] = []

    @Option(name: .customLong("amount"), help: "The amount for each --to, in order, with its unit: 0.01btc or 1000sat.")
    var amounts: [String] = []

    @Flag(help: "Send everything spendable (one recipient, no --amount).")
    var max = false

    @Option(help: "Fee rate in sat/vB (up to 3 decimals).")
    var feeRate: String?

    @Option(help: "Ask the node for a fee rate to confirm within N blocks (default 6).")
    var targetBlocks: Int?

    @Option(name: .customLong("utxo"), help: "Spend exactly these coins (TXID:VOUT; repeat).")
    var utxos: [String] = []

    @Flag(help: "Do not signal replace-by-fee.")
    var noRbf = false

    @Flag(help: "Spend on the timelocked (recovery) path of a miniscript policy wallet.")
    var recovery = false

    @Option(help: "With --recovery: the master fingerprints (hex, comma-separated) of the keys that will sign.")
    var keys: String?

    @OptionGroup var output: OutputOptions

    @Flag(help: "Show the planned transaction without writing a PSBT.")
    var dryRun = false

    func validate() throws {
        guard !recipients.isEmpty else { throw ValidationError("give at least one --to ADDRESS") }
        if max {
            guard recipients.count == 1, amounts.isEmpty else {
                throw ValidationError("--max takes one --to and no --amount")
            }
        } else {
            guard amounts.count == recipients.count else {
                throw ValidationError(
                    "give one --amount for each --to (\(recipients.count) addresses, \(amounts.count) amounts)")
            }
        }
        if keys != nil && !recovery { throw ValidationError("--keys goes with --recovery") }
        if feeRate != nil && targetBlocks != nil {
            throw ValidationError("use --fee-rate or --target-blocks, not both")
        }
        if let targetBlocks, !(1...1008).contains(targetBlocks) {
            throw ValidationError("--target-blocks must be 1...1008")
        }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            var parsed: [Recipient] = []
            for (i, text) in recipients.enumerated() {
                let address: Address
                do {
                    address = try Address(string: text, network: wallet.network)
                } catch AddressError.wrongNetwork {
                    throw SpendError.wrongNetwork(address: text, wallet: wallet.network)
                } catch {
                    throw CLIError(.invalidInput, "invalid address '\(text)': \(error)")
                }
                var amount: Amount?
                if !max {
                    amount = try AmountArgument.bitcoin(amounts[i])
                }
                parsed.append(Recipient(address: address, amount: amount))
            }
            var only: [OutPoint]?
            if !utxos.isEmpty {
                only = try utxos.map { text in
                    do { return try OutPoint(string: text) } catch {
                        throw CLIError(.invalidInput, "invalid --utxo '\(text)'")
                    }
                }
            }
            let rate: FeeRate
            if let feeRate {
                do { rate = try FeeRate(string: feeRate) } catch {
                    throw CLIError(.invalidInput, "invalid --fee-rate: \(error)")
                }
            } else {
                let (_, source) = try await context.connect(wallet)
                rate = try await source.feeRate(targetBlocks: targetBlocks ?? 6)
                await source.close()
            }
            var path: PolicyPath?
            if recovery {
                let external = try Account(record: wallet).external
                let fingerprints = keys.map { $0.split(separator: ",").map(String.init) }
                if let miniscript = external.miniscript {
                    path = try PolicyPath.recovery(of: miniscript, fingerprints: fingerprints)
                } else if case .tr(_, let tree?) = external.expression, !external.tapLeafMiniscripts.isEmpty {
                    path = try PolicyPath.recovery(ofTree: tree, fingerprints: fingerprints)
                } else {
                    throw CLIError(
                        .invalidInput,
                        "--recovery: this wallet has no miniscript policy (wsh(MINISCRIPT) or tr() miniscript leaves)")
                }
            }
            var generator = SystemRandomNumberGenerator()
            let planner = try SpendPlanner(store: context.store, wallet: wallet)
            let plan = try planner.plan(
                recipients: parsed, feeRate: rate, only: only, rbf: !noRbf, path: path, using: &generator)
            let validity = try path.map { try recoveryValidity($0, plan: plan, context: context, wallet: wallet) }
            let tx = plan.transaction
            if dryRun {
                try showPlan(plan, network: wallet.network)
                return
            }
            let psbt = try plan.psbt(account: planner.account)
            try PSBTArchive(store: context.store).save(psbt)
            let written = try PSBTFiles.write(
                psbt, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
            let inputVSize = planner.inputVSize
            let vsize = tx.vsize + plan.inputs.count * (inputVSize - 41)
            let changeScripts: Set<Script> = plan.change.map { [plan.outputs[$0.position].scriptPubKey] } ?? []
            let summary = PSBTFiles.summary(
                tx, fee: plan.fee.sats, vsize: vsize, network: wallet.network, own: changeScripts)
            if global.json {
                try JSONOutput.print(
                    SendJSON(
                        summary: summary.json, txid: tx.txid.hexString, psbt: psbt.base64String, written: written,
                        inputs: plan.inputs.map {
                            SpentCoinJSON(outpoint: $0.utxo.outpoint.description, value: $0.utxo.value.sats)
                        },
                        changeIndex: plan.change?.index, algorithm: plan.algorithm.rawValue,
                        locktime: Int(plan.lockTime.rawValue), rbf: !noRbf, recovery: validity), files: written)
            } else {
                Diagnostics.print(
                    "unsigned transaction \(tx.txid.hexString): \(plan.inputs.count) input(s), \(plan.algorithm.displayName)"
                )
                for line in summary.lines { Diagnostics.print(line) }
                if let validity { Diagnostics.print(validity.text) }
                OutputOptions.printWritten(written)
            }
        }
    }

    /// What a recovery spend needs and from when the node accepts it.
    private func recoveryValidity(_ path: PolicyPath, plan: SpendPlan, context: WatcherContext, wallet: WalletRecord)
        throws -> RecoveryJSON
    {
        let tip = try context.store.syncedTip(walletID: wallet.requireID())?.height
        var from: Int? = 0
        for input in plan.inputs {
            guard let height = path.validFromTip(coinHeight: input.utxo.height, lockTime: plan.lockTime.rawValue),
                let current = from
            else {
                from = nil
                break
            }
            from = Swift.max(current, height)
        }
        return RecoveryJSON(
            leaf: path.leaf, signers: path.signers,
            sequence: Int(plan.transaction.inputs.first?.sequence.rawValue ?? 0),
            locktime: Int(plan.lockTime.rawValue), relativeTimelock: path.relativeTimelock.map(Int.init),
            absoluteTimelock: path.absoluteTimelock.map(Int.init), validFromHeight: from, tipHeight: tip)
    }

    /// `--dry-run`: the plan and the unsigned transaction, without a PSBT.
    private func showPlan(_ plan: SpendPlan, network: Network) throws {
        let tx = plan.transaction
        if global.json {
            try JSONOutput.print(
                SendPlanJSON(
                    txid: tx.txid.hexString, fee: plan.fee.sats, feeRateSatPerKvb: plan.feeRate.satsPerKVB,
                    algorithm: plan.algorithm.rawValue, waste: plan.waste, locktime: Int(plan.lockTime.rawValue),
                    rbf: !noRbf,
                    inputs: plan.inputs.map {
                        SpentCoinJSON(outpoint: $0.utxo.outpoint.description, value: $0.utxo.value.sats)
                    },
                    outputs: plan.outputs.enumerated().map { i, o in
                        .init(script: o.scriptPubKey.hexString, value: o.value.sats, change: plan.change?.position == i)
                    },
                    unsignedTx: tx.serialized().hexString))
        } else {
            print(
                "inputs: \(plan.inputs.count), fee \(plan.fee.btcString) BTC (\(plan.feeRate)), \(plan.algorithm.displayName)"
            )
            for (i, output) in plan.outputs.enumerated() {
                let address =
                    (try? Address(scriptPubKey: output.scriptPubKey, network: network))?.description
                    ?? output.scriptPubKey.hexString
                print("  \(address)  \(output.value.btcString) BTC" + (plan.change?.position == i ? "  (change)" : ""))
            }
        }
    }
}
