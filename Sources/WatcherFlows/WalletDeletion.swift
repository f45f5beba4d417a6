import BitcoinCrypto
import Watcher

/// `wallets delete NAME`: finds the Bitcoin wallet or Ethereum account, asks for confirmation with what will be
/// lost, and deletes it with everything stored for it.
public enum WalletDeletion {
    /// What was deleted.
    public struct Report: Encodable, Sendable, Equatable {
        public let deleted: String
        /// `bitcoin` or `ethereum`.
        public let chain: String
        public let transactions: Int
        public let labels: Int
        /// `wallet 'NAME' (N transactions, M labels)`, or the Ethereum account's words.
        public let what: String

        enum CodingKeys: String, CodingKey { case deleted, chain, transactions, labels }

        /// `deleted WHAT`.
        public var line: String { "deleted \(what)" }
    }

    /// Why nothing was deleted.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible, FailureClassifying {
        /// A Bitcoin wallet and an Ethereum account share the name and no chain was given.
        case ambiguous(String)
        /// No wallet or account has the name; the known ones.
        case notFound(String, known: [String])
        /// The user declined at the confirmation.
        case declined

        public var failureKind: FailureKind {
            switch self {
            case .ambiguous: .usage
            case .notFound: .invalidInput
            case .declined: .refused
            }
        }

        public var description: String {
            switch self {
            case .ambiguous(let name):
                "both a Bitcoin wallet and an Ethereum account are called '\(name)': add --chain btc or --chain eth"
            case .notFound(let name, let known):
                "no wallet named '\(name)'"
                    + (known.isEmpty ? " (none yet)" : "; wallets: \(known.joined(separator: ", "))")
            case .declined: "not deleted: declined at the confirmation"
            }
        }
    }

    /// Deletes the wallet or account `name` (of `chain`, when given) once `confirm` agrees to the question it is
    /// asked (`Delete WHAT from this watcher?`).
    ///
    /// - Throws: `Failure` (nothing deleted), or `confirm`'s error, or `StoreError`.
    public static func run(
        store: Store, name: String, chain: NodeSettings.Chain?, confirm: (String) throws -> Bool
    ) throws -> Report {
        let bitcoin = chain == .eth ? nil : try store.wallets().first { $0.name == name }
        let ethereum = chain == .btc ? nil : try store.ethereumAccounts().first { $0.name == name }
        if bitcoin != nil, ethereum != nil { throw Failure.ambiguous(name) }
        let report: Report
        let delete: () throws -> Void
        if let wallet = bitcoin {
            let id = try wallet.requireID()
            let transactions = try store.transactions(walletID: id).count
            let labels = try store.labels(walletID: id).count
            report = Report(
                deleted: name, chain: "bitcoin", transactions: transactions, labels: labels,
                what: "wallet '\(name)' (\(transactions) transactions, \(labels) labels)")
            delete = {
                try store.deleteWallet(id: id)
                try store.setBirthday(nil, walletName: wallet.name)
                try store.setNetworkSource(nil, walletName: wallet.name)
            }
        } else if let account = ethereum, let id = account.id {
            let transactions = try store.ethereumTransactions(accountID: id).count
            report = Report(
                deleted: name, chain: "ethereum", transactions: transactions, labels: 0,
                what: "Ethereum account '\(name)' (chain id \(account.chainID), \(account.entries.count) addresses, "
                    + "\(transactions) transactions)")
            delete = { try store.deleteEthereumAccount(id: id) }
        } else {
            let known = try store.wallets().map(\.name) + store.ethereumAccounts().map { "\($0.name) (eth)" }
            throw Failure.notFound(name, known: known)
        }
        guard try confirm("Delete \(report.what) from this watcher?") else { throw Failure.declined }
        try delete()
        return report
    }
}
