import Bitcoin
import ChainCore
import GRDB

/// How a wallet's network was decided at import.
public enum WalletNetworkSource: String, Sendable {
    /// Named: `import --network`, a wallet export's `chain`, or mainnet keys. Never changed.
    case given
    /// Test keys (`tpub`, `vpub`…) with no network named: they fit testnet, signet and regtest alike, so the wallet
    /// takes the test chain of the node it is first synced from.
    case keys
    /// Taken from the node at the first sync (was `keys`).
    case node
}

/// The check every command that talks to the Bitcoin node makes first (docs/watcher.md, "Networks"): the node's
/// chain is learnt (`ChainSource.nodeChain`) before anything else is asked.
///
/// - A wallet on the node's network goes on.
/// - A wallet whose test keys cannot tell testnet from signet or regtest, and whose network nobody named, takes the
///   node's test chain (stored, with its addresses shown in the new form) and the caller is told so.
/// - Any other wallet is refused with both names (`ChainError.wrongChain`, exit 2): nothing is synced, sent or
///   broadcast to a node of another network.
public enum NetworkCheck {
    /// What the check found.
    public struct Outcome {
        /// The wallet, with the network it now has.
        public var wallet: WalletRecord
        /// A source for the wallet's network (made again when the wallet took the node's network).
        public var source: any ChainSource
        /// The node's chain.
        public var chain: NodeChain
        /// Set when the wallet took the node's network at this call: a sentence for the user.
        public var adopted: String?
    }

    /// Makes a source for `wallet`'s network, learns the node's chain, and checks (or adopts) the network.
    ///
    /// - Parameters:
    ///   - store: the watcher's store (the wallet's network source is read, an adoption written).
    ///   - wallet: the wallet about to use the node.
    ///   - makeSource: the source for a network (the executable's choice of backend).
    /// - Returns: the wallet (with its network now), a source for it, the node's chain and any adoption note.
    /// - Throws: `ChainError.wrongChain` naming both networks, another `ChainError` when the node fails,
    ///   `StoreError` when the adoption cannot be stored; the source is closed on every error.
    public static func connect(
        store: Store, wallet: WalletRecord, makeSource: (Network) throws -> any ChainSource
    ) async throws -> Outcome {
        let source = try makeSource(wallet.network)
        let chain: NodeChain
        do {
            chain = try await source.nodeChain()
        } catch {
            await source.close()
            throw error
        }
        let decision: Decision
        do {
            decision = try decide(
                wallet: wallet, networkSource: try store.networkSource(walletName: wallet.name), chain: chain)
        } catch {
            await source.close()
            throw error
        }
        guard case .adopt(let network) = decision else {
            return Outcome(wallet: wallet, source: source, chain: chain, adopted: nil)
        }
        await source.close()
        let adopted = try store.adoptNetwork(network, wallet: wallet)
        return Outcome(
            wallet: adopted, source: try makeSource(network), chain: chain,
            adopted: "wallet '\(wallet.name)' now follows the node's network, \(chain.name): its keys fit any test "
                + "network and none was named at import (stored; its addresses are shown in \(network.rawValue) "
                + "form from now on)")
    }

    /// What to do with a wallet on a node.
    public enum Decision: Equatable, Sendable {
        /// The networks agree.
        case proceed
        /// The wallet takes the node's test network.
        case adopt(Network)
    }

    /// The rule of `connect`, on its own.
    ///
    /// - Throws: `ChainError.wrongChain` with both names.
    public static func decide(wallet: WalletRecord, networkSource: WalletNetworkSource, chain: NodeChain)
        throws(ChainError) -> Decision
    {
        let walletName = NodeChain.displayName(wallet.network)
        guard let nodeNetwork = chain.network else {
            // A custom signet (or a chain Airlock does not know): a signet wallet is let through, the rest refused.
            if wallet.network == .signet, chain.name.contains("signet") { return .proceed }
            throw .wrongChain(
                "wallet '\(wallet.name)' is \(walletName), the node is on \(chain.name): point the watcher at a "
                    + "\(walletName) node (airlock-watcher node set URL)")
        }
        if nodeNetwork == wallet.network { return .proceed }
        if networkSource == .keys, !wallet.network.isMainnet, !nodeNetwork.isMainnet { return .adopt(nodeNetwork) }
        var advice = "point the watcher at a \(walletName) node (airlock-watcher node set URL)"
        if wallet.network.isMainnet || nodeNetwork.isMainnet {
            advice +=
                ", or import the account of a \(chain.name) vault (airlock-signer init --network "
                + "\(nodeNetwork.rawValue), then export)"
        } else {
            advice +=
                ", or import the account again with --network \(nodeNetwork.rawValue) (airlock-watcher wallets "
                + "delete \(wallet.name) first)"
        }
        throw .wrongChain("wallet '\(wallet.name)' is \(walletName), the node is \(chain.name): \(advice)")
    }
}

extension Store {
    static func networkSourceKey(_ walletName: String) -> String { "wallet.\(walletName).network-source" }

    /// How the wallet's network was decided; a test wallet stored before this was recorded counts as `.keys`.
    public func networkSource(walletName: String) throws(StoreError) -> WalletNetworkSource {
        if let text = try setting(Self.networkSourceKey(walletName)) {
            guard let source = WalletNetworkSource(rawValue: text) else {
                throw .corrupt("network source '\(text)' of wallet '\(walletName)'")
            }
            return source
        }
        let wallet = try self.wallet(named: walletName)
        return wallet.network == .test ? .keys : .given
    }

    /// Records how the wallet's network was decided (nil removes it, with the wallet).
    public func setNetworkSource(_ source: WalletNetworkSource?, walletName: String) throws(StoreError) {
        try setSetting(Self.networkSourceKey(walletName), source?.rawValue)
    }

    /// Moves a test wallet to another test network in one transaction: its network, the addresses stored for it
    /// (shown in the new network's form), the address labels that name them, and its network source (`.node`).
    func adoptNetwork(_ network: Network, wallet: WalletRecord) throws(StoreError) -> WalletRecord {
        let id = try wallet.requireID()
        var moved = wallet
        moved.network = network
        let account = try Account(record: moved)
        let stored = try addresses(walletID: id)
        var renamed: [(old: String, new: String, keychain: Keychain, index: Int)] = []
        for record in stored {
            do {
                let derived = try account.derive(record.keychain, index: record.index)
                renamed.append((record.address, derived.address, record.keychain, record.index))
            } catch {
                throw .corrupt("address \(record.keychain) \(record.index) of wallet '\(wallet.name)': \(error)")
            }
        }
        try write { db in
            try db.execute(sql: "UPDATE wallet SET network = ? WHERE id = ?", arguments: [network.rawValue, id])
            for entry in renamed where entry.old != entry.new {
                try db.execute(
                    sql: "UPDATE address SET address = ? WHERE wallet_id = ? AND keychain = ? AND idx = ?",
                    arguments: [entry.new, id, entry.keychain.rawValue, entry.index])
                try db.execute(
                    sql: "UPDATE label SET ref = ? WHERE wallet_id = ? AND type = 'addr' AND ref = ?",
                    arguments: [entry.new, id, entry.old])
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)",
                arguments: [Self.networkSourceKey(wallet.name), WalletNetworkSource.node.rawValue])
        }
        return moved
    }
}
