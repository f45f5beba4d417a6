import ArgumentParser
import CLISupport
import Ethereum
import Watcher
import WatcherEthereum

/// `airlock-watcher eth balance`.
struct EthBalance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance",
        abstract: "Show ETH and token balances as of the last sync, exact to the last decimal.",
        discussion: """
            --json gives amounts as decimal strings of base units (wei, token units): {"account", "chain_id", \
            "block", "wei", "accounts": [{"index", "address", "wei", "nonce"}], "tokens": [{"contract", "symbol", \
            "decimals", "amount"}]}.

            Examples:
              airlock-watcher eth balance
              airlock-watcher --wallet main eth balance --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let report = try EthereumFlows.balance(wallet: global.wallet, store: try EthContext(global).store)
            if global.json { try JSONOutput.print(report.json) } else { printLines(report.lines) }
        }
    }

}
