import ArgumentParser
import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher
import WatcherFlows

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
                let chain: Chain = EthereumNodeURL.isEthereum(url) ? .eth : .btc
                let (shown, host) = try Self.parse(url, chain: chain)
                let socks = try proxy.map { text throws(ChainError) in try SOCKSProxy(string: text) }
                try SOCKSProxy.check(host: host, proxy: socks)
                let context = try WatcherContext(global)
                try NodeSettings.set(store: context.store, chain: chain, url: url, proxy: socks?.description)
                if global.json {
                    try JSONOutput.print(NodeSettings.Entry(url: shown, proxy: socks?.description))
                } else {
                    print(
                        (chain == .eth ? "Ethereum node: " : "node: ") + shown + (socks.map { " through \($0)" } ?? ""))
                }
            }
        }

        /// The URL without credentials, and its host.
        static func parse(_ url: String, chain: Chain) throws(ChainError) -> (String, String) {
            if chain == .eth {
                let parsed = try EthereumNodeURL(string: url)
                return (parsed.description, parsed.host)
            }
            let parsed = try NodeURL(string: url)
            return (parsed.description, parsed.host)
        }
    }

    /// Which node `show` and `test` are about.
    typealias Chain = NodeSettings.Chain

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the Bitcoin and Ethereum nodes (without credentials).",
            discussion: """
                Without --chain, every node that is set; --chain btc or --chain eth shows one.

                Examples:
                  airlock-watcher node show
                  airlock-watcher node show --chain eth --json
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this chain's node: btc or eth.") var chain: Chain?

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                let shown = try NodeSettings.show(store: context.store, chain: chain) { chain, url, proxy in
                    chain == .btc
                        ? NodeSettings.Entry(
                            url: try NodeURL(string: url).description, proxy: try context.nodeProxy()?.description)
                        : NodeSettings.Entry(url: try EthereumNodeURL(string: url).description, proxy: proxy)
                }
                if global.json { try JSONOutput.print(shown) } else { print(shown.lines.joined(separator: "\n")) }
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Connect to the nodes and show their chain and tip.",
            discussion: """
                Without --chain, every node that is set; --chain btc or --chain eth tests one. The Bitcoin node's \
                network and the Ethereum node's chain id are shown, with a warning when the wallet (--wallet, or \
                the only one) is on another. Exits 5 when a node cannot be reached or answers with an error.

                Examples:
                  airlock-watcher node test
                  airlock-watcher --wallet savings node test --json
                  airlock-watcher node test --chain eth
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this chain's node: btc or eth.") var chain: Chain?

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                let (hasBitcoin, hasEthereum) = try NodeSettings.chosen(store: context.store, chain: chain)
                var report = NodeTest.Report()
                if hasBitcoin {
                    let wallet = try? context.wallet()
                    let (answer, warning) = try await NodeTest.bitcoin(store: context.store, wallet: wallet) {
                        try context.chainSource(network: $0, walletName: wallet?.name)
                    }
                    report.bitcoin = answer
                    report.warnings += warning.map { [$0] } ?? []
                }
                if hasEthereum {
                    let account = try? context.store.ethereumAccount(named: global.wallet)
                    let (answer, warning) = try await NodeTest.ethereum(
                        node: try EthContext(global).node(), account: account)
                    report.ethereum = answer
                    report.warnings += warning.map { [$0] } ?? []
                }
                if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
                for warning in report.warnings { Diagnostics.print("warning: \(warning)") }
            }
        }
    }
}

extension NodeSettings.Chain: ExpressibleByArgument {}

extension NodeURL {
    /// The host the URL names.
    var host: String {
        switch self {
        case .electrum(let host, _, _), .bitcoind(let host, _, _, _), .esplora(let host, _, _, _): host
        }
    }
}
