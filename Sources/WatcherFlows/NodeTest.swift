import Bitcoin
import ChainCore
import Ethereum
import Watcher

/// `node test`: connects to the configured nodes and reports their chain and tip, with a warning for each wallet
/// on another chain than its node.
///
/// The concrete node clients are made by the caller (`makeSource`, `ethereumNode`): this library never opens a
/// connection of its own choosing (docs/architecture.md rule R8).
public enum NodeTest {
    /// What `node test` found.
    ///
    /// `--json` is this report's encoding; `lines` its text.
    public struct Report: Encodable, Sendable, Equatable {
        /// The Bitcoin node, when it was tested.
        public var bitcoin: Bitcoin?
        /// The Ethereum node, when it was tested.
        public var ethereum: Ethereum?
        /// A wallet on another network (or account on another chain id) than its node.
        public var warnings: [String] = []

        public init() {}

        /// The Bitcoin node's answer.
        public struct Bitcoin: Sendable, Equatable {
            public var backend: String
            public var software: String
            public var genesis: String?
            /// The node's chain: mainnet, testnet3, testnet4, signet, regtest.
            public var chain: String
            public var height: Int
            public var tip: String
            public var mode: String?
        }

        /// The Ethereum node's answer.
        public struct Ethereum: Encodable, Sendable, Equatable {
            public var url: String
            public var chainId: UInt64
            public var block: UInt64
        }

        enum CodingKeys: String, CodingKey {
            case backend, software, genesis, chain, height, tip, mode, ethereum, warnings
        }

        /// The Bitcoin fields at the top level (null when the node was not tested), the Ethereum node under
        /// `ethereum`, and `warnings`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bitcoin?.backend, forKey: .backend)
            try container.encode(bitcoin?.software, forKey: .software)
            try container.encode(bitcoin?.genesis, forKey: .genesis)
            try container.encode(bitcoin?.chain, forKey: .chain)
            try container.encode(bitcoin?.height, forKey: .height)
            try container.encode(bitcoin?.tip, forKey: .tip)
            try container.encode(bitcoin?.mode, forKey: .mode)
            try container.encode(ethereum, forKey: .ethereum)
            try container.encode(warnings, forKey: .warnings)
        }

        /// The report as text, one line a node (the warnings are the caller's to print on stderr).
        public var lines: [String] {
            var lines: [String] = []
            if let bitcoin {
                lines.append(
                    "\(bitcoin.backend): \(bitcoin.software), chain \(bitcoin.chain), height \(bitcoin.height) "
                        + "(\(bitcoin.tip))" + (bitcoin.mode.map { "; sync mode: \($0)" } ?? ""))
            }
            if let ethereum {
                lines.append("\(ethereum.url): Ethereum chain id \(ethereum.chainId), block \(ethereum.block)")
            }
            return lines
        }
    }

    /// Tests the Bitcoin node for `wallet` (or for mainnet when there is none).
    ///
    /// The node's chain is asked first: when it is another network than the wallet's, the source is made again for
    /// the node's network (its headers are checked by its own network's rules), and the mismatch is a warning.
    public static func bitcoin(
        store: Store, wallet: WalletRecord?, makeSource: (Network) throws -> any ChainSource
    ) async throws -> (Report.Bitcoin, warning: String?) {
        let expected = wallet?.network ?? .main
        var source = try makeSource(expected)
        do {
            let nodeChain = try await source.nodeChain()
            if let network = nodeChain.network, network != expected {
                await source.close()
                source = try makeSource(network)
            }
            let info = try await source.serverInfo()
            let answer = Report.Bitcoin(
                backend: source.displayName, software: info.software,
                genesis: info.genesisHash ?? nodeChain.genesisHash,
                chain: nodeChain.name, height: info.tip.height, tip: info.tip.hash, mode: info.mode)
            await source.close()
            return (answer, try warning(store: store, wallet: wallet, chain: nodeChain))
        } catch {
            await source.close()
            throw error
        }
    }

    /// The warning for `wallet` on a node of `chain`, if the two do not fit (`NetworkCheck.decide`'s refusal).
    static func warning(store: Store, wallet: WalletRecord?, chain: NodeChain) throws -> String? {
        guard let wallet else { return nil }
        do {
            _ = try NetworkCheck.decide(
                wallet: wallet, networkSource: try store.networkSource(walletName: wallet.name), chain: chain)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Tests the Ethereum node; a warning when `account` is on another chain id.
    public static func ethereum(node: any EthereumNode, account: EthereumAccount?) async throws(ChainError)
        -> (Report.Ethereum, warning: String?)
    {
        let chainID = try await node.chainID()
        let block = try await node.blockNumber()
        let answer = Report.Ethereum(url: node.displayName, chainId: chainID, block: block)
        guard let account, account.chainID != chainID else { return (answer, nil) }
        let warning = EthereumChainMessage.mismatch(
            node: node.displayName, nodeChainID: chainID, account: account.name, accountChainID: account.chainID)
        return (answer, warning)
    }
}
