import ArgumentParser
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher utxos`.
struct Utxos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List unspent outputs (frozen ones marked; freeze with a BIP329 label spendable:false).",
        discussion: "Examples:\n  airlock-watcher utxos\n  airlock-watcher utxos --json")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let id = try wallet.requireID()
            let utxos = try context.store.utxos(walletID: id)
            let addresses = Dictionary(
                try context.store.addresses(walletID: id).map { ($0.script, $0.address) },
                uniquingKeysWith: { a, _ in a })
            if global.json {
                try JSONOutput.print(utxos.map { UTXOJSON($0, address: addresses[$0.script] ?? "") })
            } else if utxos.isEmpty {
                print("no unspent outputs")
            } else {
                for u in utxos {
                    let when = u.height.map { "height \($0)" } ?? "unconfirmed"
                    print(
                        "\(u.outpoint)  \(u.value.btcString) BTC  \(addresses[u.script] ?? "")  \(when)"
                            + (u.frozen ? "  frozen" : "") + (u.isCoinbase ? "  coinbase" : ""))
                }
            }
        }
    }
}
