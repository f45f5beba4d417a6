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

    /// Which node `show` and `test` are about.
    enum Chain: String, ExpressibleByArgument, CaseIterable {
        case btc, eth
    }

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
                let bitcoin: NodeReport? =
                    chain == .eth
                    ? nil
                    : try context.store.setting(WatcherContext.nodeURLKey).map { text in
                        NodeReport(
                            url: try NodeURL(string: text).description, proxy: try context.nodeProxy()?.description)
                    }
                let ethereum: NodeReport? =
                    chain == .btc
                    ? nil
                    : try context.store.setting(EthContext.nodeURLKey).map { text in
                        NodeReport(
                            url: try EthereumNodeURL(string: text).description,
                            proxy: try context.store.setting(EthContext.nodeProxyKey))
                    }
                guard bitcoin != nil || ethereum != nil else { throw Node.notConfigured(chain) }
                if global.json {
                    try JSONOutput.print(
                        NodeShowJSON(url: bitcoin?.url, proxy: bitcoin?.proxy, ethereum: ethereum))
                } else {
                    if let bitcoin {
                        print("bitcoin: \(bitcoin.url)")
                        if let proxy = bitcoin.proxy { print("proxy: \(proxy)") }
                    }
                    if let ethereum {
                        print("ethereum: \(ethereum.url)")
                        if let proxy = ethereum.proxy { print("ethereum proxy: \(proxy)") }
                    }
                }
            }
        }
    }

    /// The usage error of `node show|test` when the node asked for is not set.
    static func notConfigured(_ chain: Chain?) -> CLIError {
        switch chain {
        case .btc: CLIError(.usage, "no Bitcoin node configured: airlock-watcher node set URL")
        case .eth: CLIError(.usage, "no Ethereum node configured: airlock-watcher node set eth+http://HOST:PORT")
        case nil:
            CLIError(
                .usage,
                "no node configured: airlock-watcher node set URL (Bitcoin: electrum://, bitcoind://, esplora+https://; "
                    + "Ethereum: eth+http://)")
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
                let bitcoinURL = try context.store.setting(WatcherContext.nodeURLKey)
                let ethereumURL = try context.store.setting(EthContext.nodeURLKey)
                let hasBitcoin = chain != .eth && bitcoinURL != nil
                let hasEthereum = chain != .btc && ethereumURL != nil
                guard hasBitcoin || hasEthereum else { throw Node.notConfigured(chain) }
                var report = NodeTestJSON()
                if hasBitcoin {
                    let wallet = try? context.wallet()
                    // The node's chain first: its headers are checked by its own network's rules.
                    var source = try context.chainSource(network: wallet?.network ?? .main, walletName: wallet?.name)
                    do {
                        let nodeChain = try await source.nodeChain()
                        if let network = nodeChain.network, network != (wallet?.network ?? .main) {
                            await source.close()
                            source = try context.chainSource(network: network, walletName: wallet?.name)
                        }
                        let info = try await source.serverInfo()
                        report.backend = source.displayName
                        report.software = info.software
                        report.genesis = info.genesisHash ?? nodeChain.genesisHash
                        report.chain = nodeChain.name
                        report.height = info.tip.height
                        report.tip = info.tip.hash
                        report.mode = info.mode
                        if let wallet {
                            do {
                                _ = try NetworkCheck.decide(
                                    wallet: wallet,
                                    networkSource: try context.store.networkSource(walletName: wallet.name),
                                    chain: nodeChain)
                            } catch {
                                report.warnings.append("\(error)")
                            }
                        }
                    } catch {
                        await source.close()
                        throw error
                    }
                    await source.close()
                }
                if hasEthereum {
                    let node = try EthContext(global).node()
                    let chainID = try await node.chainID()
                    let block = try await node.blockNumber()
                    report.ethereum = .init(url: node.displayName, chainId: chainID, block: block)
                    let account = try? context.store.ethereumAccount(named: global.wallet)
                    if let account, account.chainID != chainID {
                        report.warnings.append(
                            EthereumChainMessage.mismatch(
                                node: node.displayName, nodeChainID: chainID, account: account.name,
                                accountChainID: account.chainID))
                    }
                }
                if global.json {
                    try JSONOutput.print(report)
                } else {
                    if let backend = report.backend, let software = report.software, let height = report.height,
                        let tip = report.tip
                    {
                        print(
                            "\(backend): \(software), chain \(report.chain ?? "?"), height \(height) (\(tip))"
                                + (report.mode.map { "; sync mode: \($0)" } ?? ""))
                    }
                    if let ethereum = report.ethereum {
                        print("\(ethereum.url): Ethereum chain id \(ethereum.chainId), block \(ethereum.block)")
                    }
                }
                for warning in report.warnings { Diagnostics.print("warning: \(warning)") }
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
