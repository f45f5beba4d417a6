import ArgumentParser
import CLISupport
import Watcher
import WatcherEthereum

/// `airlock-watcher eth sync`.
struct EthSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Read balances, nonces, token balances and transfers, and the fate of sent transactions.",
        discussion: """
            A node on another chain id than the account's is refused (exit 5) and nothing is written.

            Examples:
              airlock-watcher eth sync
              airlock-watcher --wallet main eth sync --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let report = try await EthereumFlows.sync(wallet: global.wallet, store: context.store, node: context.node)
            if global.json { try JSONOutput.print(report.json) } else { print(report.line) }
        }
    }

}
