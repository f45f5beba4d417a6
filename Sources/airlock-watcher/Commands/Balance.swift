import ArgumentParser
import CLISupport
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher balance`.
struct Balance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance",
        abstract: "Show the balance as of the last sync: confirmed, unconfirmed, immature.",
        discussion: """
            --json gives sats: {"confirmed", "unconfirmed", "immature", "frozen", "total", "height"}.

            Examples:
              airlock-watcher balance
              airlock-watcher --wallet savings balance --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let report = try WalletQueries.balance(store: context.store, wallet: try context.wallet())
            if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
        }
    }
}
