import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher
import WatcherFlows

/// What a command works with: the store in the data directory, the chosen wallet, and the chain source of the
/// `node set` URL.
///
/// The only place that picks a concrete `ChainSource` (docs/architecture.md rule R8).
struct WatcherContext {
    let options: GlobalOptions
    let store: Store

    init(_ options: GlobalOptions) throws {
        self.options = options
        store = try OpenStores.store(directory: options.resolvedDataDir)
    }

    /// The wallet named by `--wallet`, or the only one.
    func wallet() throws -> WalletRecord { try store.wallet(named: options.wallet) }

    static let nodeURLKey = NodeSettings.bitcoinURLKey
    /// The SOCKS proxy of the node set with `node set URL --proxy` (removed by a `node set` without one).
    static let nodeProxyKey = NodeSettings.bitcoinProxyKey

    /// The proxy stored with the node, if any.
    func nodeProxy() throws -> SOCKSProxy? {
        try store.setting(Self.nodeProxyKey).map { text throws(ChainError) in try SOCKSProxy(string: text) }
    }

    /// The chain source for the configured node, for a wallet on `network`.
    ///
    /// `walletName` names the Bitcoin Core
    /// wallet a sync goes through when the URL names none (`airlock-<walletName>`).
    func chainSource(network: Network, walletName: String? = nil) throws -> any ChainSource {
        guard let text = try store.setting(Self.nodeURLKey) else {
            throw CLIError(.usage, "no node configured: airlock-watcher node set URL (e.g. electrum://127.0.0.1:50001)")
        }
        return Self.makeSource(
            try NodeURL(string: text), network: network, walletName: walletName, proxy: try nodeProxy())
    }

    /// The chain source for `wallet`, once the node's network is checked against the wallet's
    /// (`NetworkCheck.connect`): a wallet of another network is refused (exit 2); a test wallet that takes the
    /// node's test network is told on stderr.
    func connect(_ wallet: WalletRecord, coreWallet: Bool = false) async throws -> (WalletRecord, any ChainSource) {
        guard let text = try store.setting(Self.nodeURLKey) else {
            throw CLIError(.usage, "no node configured: airlock-watcher node set URL (e.g. electrum://127.0.0.1:50001)")
        }
        let url = try NodeURL(string: text)
        let proxy = try nodeProxy()
        let outcome = try await NetworkCheck.connect(store: store, wallet: wallet) { network in
            Self.makeSource(url, network: network, walletName: coreWallet ? wallet.name : nil, proxy: proxy)
        }
        if let note = outcome.adopted { Diagnostics.print(note) }
        return (outcome.wallet, outcome.source)
    }

    static func makeSource(
        _ url: NodeURL, network: Network, walletName: String? = nil, proxy: SOCKSProxy? = nil
    ) -> any ChainSource {
        // $AIRLOCK_NODE_TIMEOUT bounds each request (Bitcoin Core: 60 s unless it is set); a Core rescan is not a
        // request of its own and is waited for without a limit.
        let configured = Int(ProcessInfo.processInfo.environment["AIRLOCK_NODE_TIMEOUT"] ?? "").flatMap {
            $0 > 0 ? $0 : nil
        }
        let timeout = configured ?? 30
        switch url {
        case .electrum(let host, let port, let tls):
            return ElectrumClient(
                host: host, port: port, tls: tls, network: network, timeout: timeout, proxy: proxy)
        case .bitcoind(let host, let port, let auth, let wallet):
            return BitcoinCoreRPC(
                host: host, port: port, auth: auth, wallet: wallet ?? walletName.map { "airlock-\($0)" },
                timeout: configured ?? 60, proxy: proxy)
        case .esplora(let host, let port, let path, let tls):
            return EsploraClient(
                host: host, port: port, basePath: path, tls: tls, network: network, timeout: timeout, proxy: proxy)
        }
    }
}

/// Formats sats as BTC text.
func btc(_ sats: UInt64) -> String { (try? Amount(sats: sats))?.btcString ?? "\(sats) sat" }

func btcSigned(_ sats: Int64) -> String { (sats < 0 ? "-" : "+") + btc(sats.magnitude) }

/// A readable reason for an amount that does not parse.
func describe(_ error: AmountError) -> String {
    switch error {
    case .invalidFormat: "not an amount (write 0.001btc or 100000sat)"
    case .tooManyDecimals(let n): "too many decimals (\(n); BTC has at most 8, sat none)"
    case .negative: "negative"
    case .exceedsMaxMoney: "more than 21,000,000 BTC"
    }
}
