import ArgumentParser
import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher
import WatcherFlows

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

    @Flag(
        help:
            "Anti-exfil signing: add nonce commitments for every ECDSA input; the signer answers with its commitments first, finalize reveals the entropy and then checks every signature."
    )
    var antiExfil = false

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
            var generator = SystemRandomNumberGenerator()
            let report = try await SendFlow(store: context.store, wallet: wallet).run(
                try request(),
                feeEstimate: { try await Self.feeRate(targetBlocks: $0, context: context, wallet: wallet) },
                using: &generator)
            guard let psbt = report.psbt else {
                if global.json {
                    try JSONOutput.print(report.planJSON)
                } else {
                    print(report.planLines.joined(separator: "\n"))
                }
                return
            }
            let written = try PSBTFiles.write(
                psbt, options: output, json: global.json, preferredFormat: PSBTFiles.requestFormat)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
            } else {
                report.lines.forEach(Diagnostics.print)
                OutputOptions.printWritten(written)
            }
        }
    }

    /// The node's fee rate estimate for confirming within `targetBlocks`.
    private static func feeRate(targetBlocks: Int, context: WatcherContext, wallet: WalletRecord) async throws
        -> FeeRate
    {
        let (_, source) = try await context.connect(wallet)
        let rate = try await source.feeRate(targetBlocks: targetBlocks)
        await source.close()
        return rate
    }

    /// The options as a `SendRequest` (amounts, coins and the fee rate parsed; addresses are checked by the flow).
    private func request() throws -> SendRequest {
        let payments = try recipients.enumerated().map { i, address in
            SendRequest.Payment(address: address, amount: max ? nil : try AmountArgument.bitcoin(amounts[i]))
        }
        let coins =
            try utxos.isEmpty
            ? nil
            : utxos.map { text in
                do { return try OutPoint(string: text) } catch {
                    throw CLIError(.invalidInput, "invalid --utxo '\(text)'")
                }
            }
        var rate = SendRequest.Rate.target(blocks: targetBlocks ?? 6)
        if let feeRate {
            do { rate = .fixed(try FeeRate(string: feeRate)) } catch {
                throw CLIError(.invalidInput, "invalid --fee-rate: \(error)")
            }
        }
        var request = SendRequest(
            payments: payments, rate: rate, coins: coins, rbf: !noRbf, recovery: recovery,
            signers: keys.map { $0.split(separator: ",").map(String.init) }, dryRun: dryRun)
        request.antiExfil = antiExfil
        return request
    }
}
