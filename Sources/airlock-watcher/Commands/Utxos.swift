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
                try JSONOutput.printObject(
                    utxos.map { u -> [String: Any] in
                        [
                            "outpoint": u.outpoint.description, "txid": u.outpoint.txid.hexString,
                            "vout": Int(u.outpoint.vout),
                            "value": u.value.sats, "address": addresses[u.script] ?? "",
                            "keychain": u.keychain.description,
                            "index": u.index, "height": u.height.map { $0 as Any } ?? NSNull(),
                            "coinbase": u.isCoinbase,
                            "frozen": u.frozen,
                        ]
                    })
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
