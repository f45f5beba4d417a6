import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher history`.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the wallet's transactions, newest first.",
        discussion: "Examples:\n  airlock-watcher history\n  airlock-watcher history --json")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let id = try wallet.requireID()
            let items = try context.store.history(walletID: id)
            let labels = Dictionary(
                try context.store.labels(walletID: id).filter { $0.type == "tx" }.map { ($0.ref, $0.label ?? "") },
                uniquingKeysWith: { a, _ in a })
            if global.json {
                try JSONOutput.print(items.map { HistoryJSON($0, label: labels[$0.txid.hexString]) })
            } else if items.isEmpty {
                print("no transactions (run sync first)")
            } else {
                for item in items {
                    let when = item.height.map { "height \($0)" } ?? "unconfirmed"
                    let label = labels[item.txid.hexString].map { "  " + DisplayText.clean($0) } ?? ""
                    print("\(item.txid)  \(btcSigned(item.net)) BTC  \(when)\(label)")
                }
            }
        }
    }
}
