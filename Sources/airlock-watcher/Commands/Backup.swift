import ArgumentParser
import CLISupport
import Foundation
import Watcher
import WatcherFlows

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
            let (data, wallets) = try BackupFlow.backup(store: try WatcherContext(global).store)
            if out == "-" {
                StandardOutput.write(data + Data("\n".utf8))
                return
            }
            try LocalFiles.write(data, to: out, mode: 0o600)
            let report = BackupFlow.BackupReport(file: out, wallets: wallets)
            if global.json { try JSONOutput.print(report) } else { print(report.line) }
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
            let backup = try BackupFlow.read(try LocalFiles.read(file), name: file)
            let report = try BackupFlow.restore(backup, store: try WatcherContext(global).store, force: force)
            if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
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

/// `airlock-watcher wallets delete NAME [--yes] [--chain btc|eth]`.
struct WalletsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a Bitcoin wallet or an Ethereum account and everything stored for it.",
        discussion: """
            A Bitcoin wallet loses its addresses, history, labels and birthday; an Ethereum account its addresses, \
            tokens, requests and transfers. Asks for confirmation on the terminal; --yes answers it. Without a \
            terminal and without --yes nothing is deleted (exit 4). The keys are not affected: the signer holds \
            them, and the wallet can be imported again. A backup first keeps its labels. When a Bitcoin wallet and \
            an Ethereum account share the name, --chain btc or --chain eth says which.

            Examples:
              airlock-watcher wallets delete old-savings
              airlock-watcher wallets delete old-savings --yes --json
              airlock-watcher wallets delete eth --chain eth --yes
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The wallet or Ethereum account to delete.") var name: String
    @Flag(help: "Delete without asking.") var yes = false
    @Option(help: "Which chain's wallet: btc or eth (needed only when both have one of this name).")
    var chain: Node.Chain?

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let report = try WalletDeletion.run(store: context.store, name: name, chain: chain) { question in
                if yes { return true }
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIError(.refused, "not deleted: no terminal to confirm on (pass --yes to delete '\(name)')")
                }
                return Prompt.confirm(question)
            }
            if global.json { try JSONOutput.print(report) } else { print(report.line) }
        }
    }
}

/// `airlock-watcher wallets [list]`.
struct WalletsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the Bitcoin wallets and Ethereum accounts.",
        discussion: """
            One line each: name, chain and network (or chain id), then the receive descriptor or the first address. \
            --json gives a list of {"name", "chain": "bitcoin"|"ethereum", …}: a Bitcoin wallet's "network", \
            "gap_limit" and descriptors, an Ethereum account's "chain_id" and "addresses".

            Examples:
              airlock-watcher wallets
              airlock-watcher wallets list --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let report = try WalletQueries.wallets(store: try WatcherContext(global).store)
            if global.json {
                try JSONOutput.print(report)
            } else {
                if let hint = report.emptyHint { Diagnostics.print(hint) }
                for entry in report.entries { print(entry.line) }
            }
        }
    }
}
