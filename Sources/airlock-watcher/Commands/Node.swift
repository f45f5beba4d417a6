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
        commandName: "node",
        abstract: "Choose and check the node the watcher syncs from.",
        discussion: """
            Examples:
              airlock-watcher node set electrum://127.0.0.1:50001
              airlock-watcher node show
              airlock-watcher node test --json
            """,
        subcommands: [Set.self, Show.self, Test.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the node URL.",
            discussion: """
                electrum://host:port            Electrum server over TCP
                electrums://host:port           over TLS (?insecure=1 for a self-signed certificate, ?ca=PEM)
                bitcoind://user:pass@host:port[/wallet]   Bitcoin Core RPC (or bitcoind://host:port?cookie=PATH)
                esplora+https://host/path       Esplora REST (esplora+http:// for plain HTTP)
                eth+https://host[:port]/path    an Ethereum JSON-RPC node, set apart from the Bitcoin node

                --proxy socks5h://HOST:PORT sends every connection to this node through a SOCKS5 proxy (Tor: \
                socks5h://127.0.0.1:9050); the proxy resolves the node's name, nothing is resolved locally, and \
                TLS starts after the proxy has connected. A .onion node needs a proxy. A `node set` without \
                --proxy connects directly.

                Examples:
                  airlock-watcher node set electrum://127.0.0.1:50001
                  airlock-watcher node set 'bitcoind://127.0.0.1:18443?cookie=/var/lib/bitcoin/regtest/.cookie'
                  airlock-watcher node set electrums://abcd...xyz.onion:50002 --proxy socks5h://127.0.0.1:9050
                  airlock-watcher node set eth+http://127.0.0.1:8545
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The node URL.") var url: String
        @Option(help: "A SOCKS5 proxy for this node: socks5h://HOST:PORT.") var proxy: String?

        func run() async throws {
            try await ErrorReporting.run {
                if EthereumNodeURL.isEthereum(url) {
                    let parsed = try EthereumNodeURL(string: url)
                    let socks = try proxy.map { text throws(ChainError) in try SOCKSProxy(string: text) }
                    try SOCKSProxy.check(host: parsed.host, proxy: socks)
                    let context = try WatcherContext(global)
                    try context.store.setSetting(EthContext.nodeURLKey, url)
                    try context.store.setSetting(EthContext.nodeProxyKey, socks?.description)
                    if global.json {
                        try JSONOutput.print(NodeReport(url: parsed.description, proxy: socks?.description))
                    } else {
                        print("Ethereum node: \(parsed)" + (socks.map { " through \($0)" } ?? ""))
                    }
                    return
                }
                let parsed = try NodeURL(string: url)
                let socks = try proxy.map { text throws(ChainError) in try SOCKSProxy(string: text) }
                try SOCKSProxy.check(host: parsed.host, proxy: socks)
                let context = try WatcherContext(global)
                try context.store.setSetting(WatcherContext.nodeURLKey, url)
                try context.store.setSetting(WatcherContext.nodeProxyKey, socks?.description)
                if global.json {
                    try JSONOutput.print(NodeReport(url: parsed.description, proxy: socks?.description))
                } else {
                    print("node: \(parsed)" + (socks.map { " through \($0)" } ?? ""))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the node URL (without credentials).",
            discussion: """
                Examples:
                  airlock-watcher node show
                  airlock-watcher node show --json
                """)
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                guard let text = try context.store.setting(WatcherContext.nodeURLKey) else {
                    throw CLIError(.usage, "no node configured: airlock-watcher node set URL")
                }
                let parsed = try NodeURL(string: text)
                let proxy = try context.nodeProxy()
                if global.json {
                    try JSONOutput.print(NodeReport(url: parsed.description, proxy: proxy?.description))
                } else {
                    print(parsed)
                    if let proxy { print("proxy: \(proxy)") }
                }
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Connect to the node and show its tip.",
            discussion: """
                Exits 5 when the node cannot be reached or answers with an error.

                Examples:
                  airlock-watcher node test
                  airlock-watcher --wallet savings node test --json
                """)
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                let wallet = try? context.wallet()
                let source = try context.chainSource(network: wallet?.network ?? .main, walletName: wallet?.name)
                let info = try await source.serverInfo()
                if global.json {
                    try JSONOutput.print(
                        NodeTestJSON(
                            backend: source.displayName, software: info.software, genesis: info.genesisHash,
                            height: info.tip.height, tip: info.tip.hash, mode: info.mode))
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

/// `node set` and `node show --json`: the node URL without credentials and its proxy.
struct NodeReport: Encodable {
    let url: String
    let proxy: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(proxy, forKey: .proxy)
    }

    enum CodingKeys: String, CodingKey { case url, proxy }
}

extension NodeURL {
    /// The host the URL names.
    var host: String {
        switch self {
        case .electrum(let host, _, _), .bitcoind(let host, _, _, _), .esplora(let host, _, _, _): host
        }
    }
}
