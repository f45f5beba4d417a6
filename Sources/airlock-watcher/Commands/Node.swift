import ArgumentParser
import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher

/// `airlock-watcher node set|show|test`.
struct Node: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Choose and check the node the watcher syncs from.",
        subcommands: [Set.self, Show.self, Test.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the node URL.",
            discussion: """
                electrum://host:port            Electrum server over TCP
                electrums://host:port           over TLS (?insecure=1 for a self-signed certificate, ?ca=PEM)
                bitcoind://user:pass@host:port[/wallet]   Bitcoin Core RPC (or bitcoind://host:port?cookie=PATH)
                esplora+https://host/path       Esplora REST (esplora+http:// for plain HTTP)

                Examples:
                  airlock-watcher node set electrum://127.0.0.1:50001
                  airlock-watcher node set 'bitcoind://127.0.0.1:18443?cookie=/var/lib/bitcoin/regtest/.cookie'
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The node URL.") var url: String

        func run() async throws {
            try await ErrorReporting.run {
                let parsed = try NodeURL(string: url)
                let context = try WatcherContext(global)
                try context.store.setSetting(WatcherContext.nodeURLKey, url)
                if global.json {
                    try JSONOutput.printObject(["url": parsed.description])
                } else {
                    print("node: \(parsed)")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the node URL (without credentials).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                guard let text = try context.store.setting(WatcherContext.nodeURLKey) else {
                    throw CLIError(.usage, "no node configured: airlock-watcher node set URL")
                }
                let parsed = try NodeURL(string: text)
                if global.json { try JSONOutput.printObject(["url": parsed.description]) } else { print(parsed) }
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Connect to the node and show its tip.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                let wallet = try? context.wallet()
                let source = try context.chainSource(network: wallet?.network ?? .main, walletName: wallet?.name)
                let info = try await source.serverInfo()
                if global.json {
                    try JSONOutput.printObject(
                        [
                            "backend": source.displayName, "software": info.software,
                            "genesis": info.genesisHash ?? NSNull(), "height": info.tip.height, "tip": info.tip.hash,
                            "mode": info.mode ?? NSNull(),
                        ] as [String: Any])
                } else {
                    print(
                        "\(source.displayName): \(info.software), height \(info.tip.height) (\(info.tip.hash))"
                            + (info.mode.map { "; sync mode: \($0)" } ?? ""))
                }
                await source.close()
            }
        }
    }
}
