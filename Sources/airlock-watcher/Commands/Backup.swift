import ArgumentParser
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher backup --out FILE`.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write every wallet, label, address index and setting (no chain data) as versioned JSON.",
        discussion: "Example:\n  airlock-watcher backup --out watcher-backup.json")

    @OptionGroup var global: GlobalOptions

    @Option(help: "The backup file ('-' for stdout).")
    var out: String

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let backup = try context.store.makeBackup()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            let data = try encoder.encode(backup)
            if out == "-" {
                StandardOutput.write(data + Data("\n".utf8))
                return
            }
            try LocalFiles.write(data, to: out, mode: 0o600)
            if global.json {
                try JSONOutput.print(BackupJSON(file: out, wallets: backup.wallets.map(\.name)))
            } else {
                print("backed up \(backup.wallets.count) wallet(s) to \(out)")
            }
        }
    }
}

/// `airlock-watcher restore FILE [--force]`.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into the data directory; refuses to replace existing data without --force.",
        discussion:
            "Example:\n  airlock-watcher --data-dir ~/new restore watcher-backup.json && airlock-watcher --data-dir ~/new sync"
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The backup file, or - for stdin.")
    var file: String

    @Flag(help: "Replace the wallets and settings already in the data directory.")
    var force = false

    func run() async throws {
        try await ErrorReporting.run {
            let data = try LocalFiles.read(file)
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let backup: Watcher.Backup
            do {
                backup = try decoder.decode(Watcher.Backup.self, from: data)
            } catch {
                throw BackupError.invalid("\(file) is not backup JSON")
            }
            let context = try WatcherContext(global)
            try context.store.restore(backup, force: force)
            if global.json {
                try JSONOutput.print(RestoreJSON(restored: backup.wallets.map(\.name)))
            } else {
                print(
                    "restored \(backup.wallets.count) wallet(s): \(backup.wallets.map(\.name).joined(separator: ", "))")
                print("run sync to fetch their history")
            }
        }
    }
}

/// `airlock-watcher wallets [list] | delete NAME`.
struct Wallets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallets",
        abstract: "List the imported wallets, or delete one.",
        discussion: "Examples:\n  airlock-watcher wallets --json\n  airlock-watcher wallets delete old-savings",
        subcommands: [WalletsList.self, WalletsDelete.self], defaultSubcommand: WalletsList.self)
}

/// `airlock-watcher wallets delete NAME [--yes]`.
struct WalletsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a wallet and everything stored for it (addresses, history, labels, birthday).",
        discussion: """
            Asks for confirmation on the terminal; --yes answers it. Without a terminal and without --yes nothing \
            is deleted (exit 4). The keys are not affected: the signer holds them, and the wallet can be imported \
            again. A backup first keeps its labels.

            Examples:
              airlock-watcher wallets delete old-savings
              airlock-watcher wallets delete old-savings --yes --json
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The wallet to delete.") var name: String
    @Flag(help: "Delete without asking.") var yes = false

    /// `--json` of `wallets delete`.
    struct Report: Encodable {
        let deleted: String
        let transactions: Int
        let labels: Int
    }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.store.wallet(named: name)
            let id = try wallet.requireID()
            let transactions = try context.store.transactions(walletID: id).count
            let labels = try context.store.labels(walletID: id).count
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIError(.refused, "not deleted: no terminal to confirm on (pass --yes to delete '\(name)')")
                }
                guard
                    Prompt.confirm(
                        "Delete wallet '\(name)' (\(transactions) transactions, \(labels) labels) from this watcher?")
                else { throw CLIError(.refused, "not deleted: declined at the confirmation") }
            }
            try context.store.deleteWallet(id: id)
            try context.store.setBirthday(nil, walletName: wallet.name)
            if global.json {
                try JSONOutput.print(Report(deleted: wallet.name, transactions: transactions, labels: labels))
            } else {
                print("deleted wallet '\(wallet.name)'")
            }
        }
    }
}

/// `airlock-watcher wallets [list]`.
struct WalletsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the imported wallets.",
        discussion: "Examples:\n  airlock-watcher wallets\n  airlock-watcher wallets list --json")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallets = try context.store.wallets()
            if global.json {
                try JSONOutput.print(wallets.map(WalletJSON.init))
            } else {
                for w in wallets { print("\(w.name)\t\(w.network.rawValue)\t\(w.descriptors[.external] ?? "")") }
            }
        }
    }
}
