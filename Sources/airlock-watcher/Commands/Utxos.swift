import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher utxos [list] | freeze | unfreeze`.
struct Utxos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "utxos",
        abstract: "List unspent outputs; freeze or unfreeze them (coin control).",
        discussion: """
            Examples:
              airlock-watcher utxos
              airlock-watcher utxos freeze 5f3c...e1:0
              airlock-watcher utxos unfreeze 5f3c...e1:0
            """,
        subcommands: [UtxosList.self, Freeze.self, Unfreeze.self], defaultSubcommand: UtxosList.self)
}

extension Utxos {
    /// `utxos freeze OUTPOINT…`.
    struct Freeze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "freeze",
            abstract: "Freeze coins: send never selects them unless named with --utxo.",
            discussion: """
                Stored as BIP329 output labels with "spendable": false, so labels export/import carries them.

                Examples:
                  airlock-watcher utxos freeze 5f3c...e1:0 9a0b...77:1
                  airlock-watcher utxos freeze 5f3c...e1:0 --json
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Outpoints TXID:VOUT of the wallet's unspent outputs.") var outpoints: [String]

        func run() async throws {
            try await ErrorReporting.run { try setFrozen(outpoints, frozen: true, global: global) }
        }
    }

    /// `utxos unfreeze OUTPOINT…`.
    struct Unfreeze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unfreeze",
            abstract: "Unfreeze coins: send may select them again.",
            discussion: """
                Examples:
                  airlock-watcher utxos unfreeze 5f3c...e1:0
                  airlock-watcher utxos unfreeze 5f3c...e1:0 --json
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Outpoints TXID:VOUT of the wallet's unspent outputs.") var outpoints: [String]

        func run() async throws {
            try await ErrorReporting.run { try setFrozen(outpoints, frozen: false, global: global) }
        }
    }

    /// `--json` of freeze and unfreeze.
    struct FreezeReport: Encodable {
        let wallet: String
        let frozen: Bool
        let outpoints: [String]
    }

    static func setFrozen(_ texts: [String], frozen: Bool, global: GlobalOptions) throws {
        guard !texts.isEmpty else { throw CLIError(.usage, "name at least one outpoint TXID:VOUT") }
        var outpoints: [OutPoint] = []
        for text in texts {
            guard let outpoint = try? OutPoint(string: text) else {
                throw CLIError(.invalidInput, "'\(text)' is not an outpoint TXID:VOUT")
            }
            outpoints.append(outpoint)
        }
        let context = try WatcherContext(global)
        let wallet = try context.wallet()
        try context.store.setFrozen(outpoints, frozen: frozen, walletID: try wallet.requireID())
        if global.json {
            try JSONOutput.print(
                FreezeReport(wallet: wallet.name, frozen: frozen, outpoints: outpoints.map(\.description)))
        } else {
            for outpoint in outpoints { print("\(frozen ? "frozen" : "unfrozen"): \(outpoint)") }
        }
    }
}

/// `airlock-watcher utxos [list]`.
struct UtxosList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List unspent outputs (frozen ones marked).",
        discussion: "Examples:\n  airlock-watcher utxos\n  airlock-watcher utxos list --json")

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
