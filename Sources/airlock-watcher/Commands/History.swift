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
            let wallet = try context.wallet()
            let id = try wallet.requireID()
            let items = try context.store.history(walletID: id)
            let labels = Dictionary(
                try context.store.labels(walletID: id).filter { $0.type == "tx" }.map { ($0.ref, $0.label ?? "") },
                uniquingKeysWith: { a, _ in a })
            let tip = try context.store.syncedTip(walletID: id)?.height
            func confirmations(_ item: HistoryItem) -> Int {
                guard let height = item.height, let tip, tip >= height else { return 0 }
                return tip - height + 1
            }
            if global.json {
                try JSONOutput.print(
                    items.map {
                        HistoryJSON(
                            $0, label: labels[$0.txid.hexString], confirmations: confirmations($0),
                            firstSeen: Self.date($0.firstSeen))
                    })
            } else if items.isEmpty {
                print("no transactions (run sync first)")
            } else {
                for item in items {
                    let count = confirmations(item)
                    let state =
                        item.height == nil
                        ? "unconfirmed" : "\(count) confirmation\(count == 1 ? "" : "s") (block \(item.height ?? 0))"
                    let label = labels[item.txid.hexString].map { "  \"" + DisplayText.clean($0) + "\"" } ?? ""
                    print(
                        "\(Self.date(item.firstSeen))  \(btcSigned(item.net)) BTC  \(state)  \(item.txid)\(label)")
                }
            }
        }
    }

    /// A Unix time as `2026-11-26 14:02 UTC`.
    static func date(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
