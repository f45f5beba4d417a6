import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher history`.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the wallet's transactions, newest first.",
        discussion: """
            One line a transaction: when this watcher first saw it (UTC), what it did to the balance, its \
            confirmations (and block), its txid and its label.

            Examples:
              airlock-watcher history
              airlock-watcher history --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let report = try WalletHistory.report(store: context.store, wallet: try context.wallet())
            if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
        }
    }
}
