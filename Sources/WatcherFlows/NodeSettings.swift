import BitcoinCrypto
import Watcher

/// The nodes set with `node set`: where they are stored, and what `node show` reports.
public enum NodeSettings {
    /// The setting of the Bitcoin node's URL.
    public static let bitcoinURLKey = "node.url"
    /// The SOCKS proxy of the Bitcoin node (removed by a `node set` without one).
    public static let bitcoinProxyKey = "node.proxy"
    /// The setting of the Ethereum node's URL.
    public static let ethereumURLKey = "eth.node.url"
    /// The SOCKS proxy of the Ethereum node.
    public static let ethereumProxyKey = "eth.node.proxy"

    /// Which node a command is about.
    public enum Chain: String, CaseIterable, Sendable {
        case btc, eth
    }

    /// A node: its URL without credentials and its proxy (`node set --json`, and each node of `node show`).
    public struct Entry: Encodable, Sendable, Equatable {
        public let url: String
        public let proxy: String?

        public init(url: String, proxy: String?) {
            self.url = url
            self.proxy = proxy
        }

        enum CodingKeys: String, CodingKey { case url, proxy }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(proxy, forKey: .proxy)
        }
    }

    /// `node show`: the Bitcoin node's URL and proxy at the top level (null when not set), the Ethereum node's
    /// under `ethereum`.
    public struct Shown: Encodable, Sendable, Equatable {
        public var bitcoin: Entry?
        public var ethereum: Entry?

        enum CodingKeys: String, CodingKey { case url, proxy, ethereum }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bitcoin?.url, forKey: .url)
            try container.encode(bitcoin?.proxy, forKey: .proxy)
            try container.encode(ethereum, forKey: .ethereum)
        }

        /// The report as text.
        public var lines: [String] {
            var lines: [String] = []
            if let bitcoin {
                lines.append("bitcoin: \(bitcoin.url)")
                if let proxy = bitcoin.proxy { lines.append("proxy: \(proxy)") }
            }
            if let ethereum {
                lines.append("ethereum: \(ethereum.url)")
                if let proxy = ethereum.proxy { lines.append("ethereum proxy: \(proxy)") }
            }
            return lines
        }
    }

    /// The node asked for is not set.
    public struct NotConfigured: Error, FailureClassifying, CustomStringConvertible, Equatable {
        /// The chain asked for (nil: any).
        public let chain: Chain?

        public init(_ chain: Chain?) { self.chain = chain }

        public var failureKind: FailureKind { .usage }

        public var description: String {
            switch chain {
            case .btc: "no Bitcoin node configured: airlock-watcher node set URL"
            case .eth: "no Ethereum node configured: airlock-watcher node set eth+http://HOST:PORT"
            case nil:
                "no node configured: airlock-watcher node set URL (Bitcoin: electrum://, bitcoind://, "
                    + "esplora+https://; Ethereum: eth+http://)"
            }
        }
    }

    /// Which nodes `node show` and `node test` are about: those set, of `chain` (nil: both).
    ///
    /// - Throws: `NotConfigured` when none of them is set.
    public static func chosen(store: Store, chain: Chain?) throws -> (bitcoin: Bool, ethereum: Bool) {
        let bitcoin = try chain != .eth && store.setting(bitcoinURLKey) != nil
        let ethereum = try chain != .btc && store.setting(ethereumURLKey) != nil
        guard bitcoin || ethereum else { throw NotConfigured(chain) }
        return (bitcoin, ethereum)
    }

    /// `node show`: each chosen node as `describe` gives it (the URL without credentials, the proxy normalised).
    public static func show(
        store: Store, chain: Chain?, describe: (Chain, _ url: String, _ proxy: String?) throws -> Entry
    ) throws -> Shown {
        let (hasBitcoin, hasEthereum) = try chosen(store: store, chain: chain)
        var shown = Shown()
        if hasBitcoin, let url = try store.setting(bitcoinURLKey) {
            shown.bitcoin = try describe(.btc, url, try store.setting(bitcoinProxyKey))
        }
        if hasEthereum, let url = try store.setting(ethereumURLKey) {
            shown.ethereum = try describe(.eth, url, try store.setting(ethereumProxyKey))
        }
        return shown
    }

    /// `node set`: stores the URL and the proxy (nil removes it) of `chain`'s node.
    public static func set(store: Store, chain: Chain, url: String, proxy: String?) throws {
        try store.setSetting(chain == .btc ? bitcoinURLKey : ethereumURLKey, url)
        try store.setSetting(chain == .btc ? bitcoinProxyKey : ethereumProxyKey, proxy)
    }
}
