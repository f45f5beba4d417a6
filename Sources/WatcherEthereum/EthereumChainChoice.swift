import ChainCore
import Watcher

/// Which chain id an imported Ethereum account gets (docs/watcher.md, "Networks"): the one named with `--chain-id`,
/// else 1 (Ethereum mainnet), checked against the Ethereum node when one is set.
public enum EthereumChainChoice {
    /// The default chain id: Ethereum mainnet, as MetaMask's first network.
    public static let defaultChainID: UInt64 = 1

    /// The chain id for an account imported with `given` (nil: none named) while the node reports `nodeChainID`
    /// (nil: no node set, or not reachable).
    ///
    /// - Returns: the chain id and a warning for the user, if any.
    /// - Throws: `ChainError.wrongChain` when no chain id was named and the node is on another chain than the
    ///   default: the message names `--chain-id` with the node's.
    public static func choose(given: UInt64?, nodeChainID: UInt64?, node: String?) throws(ChainError)
        -> (chainID: UInt64, warning: String?)
    {
        let chosen = given ?? defaultChainID
        guard let nodeChainID, nodeChainID != chosen else {
            let note =
                given == nil && nodeChainID == nil
                ? "chain id \(EthereumChainMessage.describe(chosen)) (the default; another chain: --chain-id N)" : nil
            return (chosen, note)
        }
        let place = node.map { "the Ethereum node \($0)" } ?? "the Ethereum node"
        guard given != nil else {
            throw .wrongChain(
                "\(place) is on chain id \(EthereumChainMessage.describe(nodeChainID)), not "
                    + "\(EthereumChainMessage.describe(chosen)) (the default): import with --chain-id \(nodeChainID) "
                    + "for this node's chain, or --chain-id \(chosen) and a node of that chain")
        }
        return (
            chosen,
            "\(place) is on chain id \(EthereumChainMessage.describe(nodeChainID)), the account on "
                + "\(EthereumChainMessage.describe(chosen)): sync refuses it until the node is on chain \(chosen)"
        )
    }
}
