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

            With --limit, only that many transactions are read, from --offset on (0 is the newest); the text \
            ends with how many there are in all.

            Examples:
              airlock-watcher history
              airlock-watcher history --json
              airlock-watcher history --limit 50 --offset 50
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Show at most this many transactions (1 to 1000).")
    var limit: Int?

    @Option(help: "Skip this many of the newest transactions first (needs --limit).")
    var offset: Int?

    func validate() throws {
        if offset != nil && limit == nil { throw ValidationError("--offset needs --limit") }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            if let limit {
                let page = try WalletHistory.page(
                    store: context.store, wallet: try context.wallet(), limit: limit, offset: offset ?? 0)
                try page.report.show(json: global.json, lines: page.lines)
                return
            }
            let report = try WalletHistory.report(store: context.store, wallet: try context.wallet())
            try report.show(json: global.json, lines: report.lines)
        }
    }
}
