import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher
import WatcherFlows

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
    static func setFrozen(_ texts: [String], frozen: Bool, global: GlobalOptions) throws {
        let outpoints = try WalletQueries.outpoints(texts)
        let context = try WatcherContext(global)
        let report = try WalletQueries.setFrozen(
            store: context.store, wallet: try context.wallet(), outpoints: outpoints, frozen: frozen)
        if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
    }
}

struct UtxosList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List unspent outputs (frozen ones marked).",
        discussion: "Examples:\n  airlock-watcher utxos\n  airlock-watcher utxos list --json")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let report = try WalletQueries.utxos(store: context.store, wallet: try context.wallet())
            try report.show(json: global.json, lines: report.lines)
        }
    }
}
