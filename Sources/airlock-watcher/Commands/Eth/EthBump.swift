import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Watcher
import WatcherEthereum

/// `airlock-watcher eth bump`.
struct EthBump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump",
        abstract: "Replace a pending Ethereum transaction: the same nonce with higher fees, as a new request.",
        discussion: """
            The new fees are at least 12.5% above the old ones on both fields (nodes ask 10%), or the current \
            suggestion, or --max-fee/--priority-fee (gwei) when higher. Whichever of the two is mined, sync marks \
            the other replaced.

            Examples:
              airlock-watcher eth bump 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 --qr bump.png
              airlock-watcher eth bump 0x5c50…2060 --priority-fee 3 --max-fee 60 --json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The transaction hash (or request id) to replace.") var transaction: String
    @Option(name: .customLong("max-fee"), help: "Max fee per gas in gwei.") var maxFee: String?
    @Option(name: .customLong("priority-fee"), help: "Max priority fee per gas in gwei.") var priorityFee: String?

    func validate() throws { try output.validate() }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let report = try await EthereumFlows.bump(
                transaction, wallet: global.wallet, maxFee: maxFee, priorityFee: priorityFee, store: context.store,
                node: context.node)
            try EthRequestOutput.print(report, output: output, json: global.json)
        }
    }

}
