import ArgumentParser
import Bitcoin
import CLISupport
import Ethereum
import Foundation
import Watcher
import WatcherEthereum

/// `airlock-watcher eth history`.
struct EthHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract:
            "The transactions the watcher built (requested, pending, mined, failed, replaced) and token transfers.",
        discussion: """
            Examples:
              airlock-watcher eth history
              airlock-watcher eth history --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let report = try EthereumFlows.history(wallet: global.wallet, store: try EthContext(global).store)
            if global.json { return try JSONOutput.print(report.json) }
            if report.isEmpty { Diagnostics.print("no Ethereum transactions yet") }
            printLines(report.lines)
        }
    }

}
