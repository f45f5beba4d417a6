import ArgumentParser
import CLISupport
import Foundation
import Watcher

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
            let wallet = try context.wallet()
            let id = try wallet.requireID()
            let tip = try context.store.syncedTip(walletID: id)
            let balance = try context.store.balance(walletID: id, tipHeight: tip?.height)
            if global.json {
                try JSONOutput.print(BalanceJSON(wallet: wallet.name, balance: balance, height: tip?.height))
            } else {
                print("confirmed:   \(btc(balance.confirmed)) BTC")
                print("unconfirmed: \(btc(balance.unconfirmed)) BTC")
                print("immature:    \(btc(balance.immature)) BTC")
                if balance.frozen > 0 { print("frozen:      \(btc(balance.frozen)) BTC (of the above)") }
                print(
                    "total:       \(btc(balance.total)) BTC"
                        + (tip.map { " (synced to height \($0.height))" } ?? " (never synced)"))
            }
        }
    }
}
