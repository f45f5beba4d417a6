import ChainBackends
import ChainCore
import Foundation
import Watcher
import WatcherFlows
import WatcherWeb

/// The node clients `serve` hands to the web app: the same `WatcherContext` and `EthContext` the commands use.
enum WebNodes {
    static func configuration(_ context: WatcherContext, readOnly: Bool) -> WebConfiguration {
        let global = context.options
        return WebConfiguration(
            store: context.store, readOnly: readOnly,
            connect: { wallet in try await context.connect(wallet, coreWallet: true) },
            nodes: {
                try NodeSettings.show(store: context.store, chain: nil) { chain, url, proxy in
                    chain == .btc
                        ? NodeSettings.Entry(url: try NodeURL(string: url).description, proxy: proxy)
                        : NodeSettings.Entry(url: try EthereumNodeURL(string: url).description, proxy: proxy)
                }
            },
            setNode: { url in
                let chain: NodeSettings.Chain = EthereumNodeURL.isEthereum(url) ? .eth : .btc
                let (shown, _) = try Node.Set.parse(url, chain: chain)
                try NodeSettings.set(store: context.store, chain: chain, url: url, proxy: nil)
                return NodeSettings.Entry(url: shown, proxy: nil)
            },
            ethereumNode: { try EthContext(global).node() })
    }
}
