import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher addresses`.
struct Addresses: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "addresses",
        abstract: "List the derived addresses with their use.",
        discussion: "Examples:\n  airlock-watcher addresses\n  airlock-watcher addresses --change --json")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Show change addresses instead of receive addresses.")
    var change = false

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let report = try WalletQueries.addresses(
                store: context.store, wallet: try context.wallet(), keychain: change ? .internal : .external)
            try report.show(json: global.json, lines: report.lines)
        }
    }
}
