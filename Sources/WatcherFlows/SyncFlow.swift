import Bitcoin
import ChainCore
import Watcher

/// `sync`: runs `WalletSync` for a wallet over a connected source, closes the source, and reports the tip reached
/// and the balance there.
public enum SyncFlow {
    /// What the sync did.
    public struct Report: Encodable, Sendable, Equatable {
        public var wallet: String
        public var height: Int
        public var tip: String
        public var scriptsChecked: Int
        public var transactions: Int
        public var newTransactions: Int
        /// The wallet's total balance at the tip.
        public var balance: Amount
        /// How the backend synced (Bitcoin Core: `wallet NAME` or `scantxoutset (why)`).
        public var mode: String?

        enum CodingKeys: String, CodingKey {
            case wallet, height, tip, scriptsChecked, transactions, newTransactions, balance, mode
        }

        /// The balance in sats; `mode` null when the backend has one way.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(wallet, forKey: .wallet)
            try container.encode(height, forKey: .height)
            try container.encode(tip, forKey: .tip)
            try container.encode(scriptsChecked, forKey: .scriptsChecked)
            try container.encode(transactions, forKey: .transactions)
            try container.encode(newTransactions, forKey: .newTransactions)
            try container.encode(balance.sats, forKey: .balance)
            try container.encode(mode, forKey: .mode)
        }

        /// `synced 'NAME' to height H: N transactions, balance B BTC (via MODE)`.
        public var line: String {
            "synced '\(wallet)' to height \(height): \(transactions) transactions, balance \(balance.btcString) BTC"
                + (mode.map { " (via \($0))" } ?? "")
        }
    }

    /// Syncs `wallet` from `source` (connected for it, `NetworkCheck.connect`), then closes `source`, also on error.
    public static func run(
        store: Store, wallet: WalletRecord, source: any ChainSource,
        progress: @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> Report {
        let summary: SyncSummary
        do {
            summary = try await WalletSync(store: store, wallet: wallet, source: source).run(progress: progress)
        } catch {
            await source.close()
            throw error
        }
        await source.close()
        let balance = try store.balance(walletID: try wallet.requireID(), tipHeight: summary.tip.height)
        return Report(
            wallet: wallet.name, height: summary.tip.height, tip: summary.tip.hash,
            scriptsChecked: summary.scriptsChecked, transactions: summary.transactions,
            newTransactions: summary.newTransactions, balance: try Amount(sats: balance.total), mode: summary.mode)
    }
}
