import Bitcoin
import ChainCore
import Chance
import Foundation
import Watcher

/// What `broadcast` is given: a signed PSBT (several already combined), a raw transaction, or a Chance `multisig:`
/// text (several already combined).
public enum SignedInput: Sendable {
    case psbt(PSBT)
    case transaction(Transaction)
    case chance(ChanceMultisig)
}

/// What `broadcast` sent.
public struct BroadcastReport: Sendable {
    public let transaction: Transaction
    /// The txid the node answered (the transaction's own when the node had it already).
    public let txid: Txid
    public let summary: TransactionSummary
    /// Whether the node had the transaction already (sending it again is no error).
    public let alreadyKnown: Bool

    /// The stderr line after sending, if any.
    public var note: String? {
        alreadyKnown ? "already broadcast (txid \(txid.hexString)): the node has this transaction" : nil
    }

    /// `broadcast --json`.
    public var json: BroadcastJSON {
        BroadcastJSON(summary: summary.json, txid: txid.hexString, transaction: transaction.serialized().hexString)
    }
}

/// `broadcast`: completes a signed PSBT with the kept copy and finalizes it (or finishes a `multisig:` text), shows
/// what is sent, and sends it to the node.
public struct BroadcastFlow: Sendable {
    let store: Store
    let wallet: WalletRecord

    public init(store: Store, wallet: WalletRecord) {
        self.store = store
        self.wallet = wallet
    }

    /// Sends `signed`: `announce` gets the lines of what is sent (outputs, fee) before `connect` is called for the
    /// node.
    ///
    /// - Throws: `PSBTFlowError` (not signed, cannot be finalized, an incomplete text), `PSBTError`, `StoreError`,
    ///   `ChainError` from the node (a timelock not met yet: its rejection, explained).
    public func run(
        _ signed: SignedInput, connect: () async throws -> any ChainSource, announce: ([String]) -> Void
    ) async throws -> BroadcastReport {
        let (transaction, fee) = try prepared(signed)
        let own = Set(try store.addresses(walletID: wallet.requireID()).map(\.script))
        let summary = TransactionSummary(
            transaction, fee: fee, vsize: transaction.vsize, network: wallet.network, own: own)
        announce(["sending \(transaction.txid.hexString):"] + summary.lines)
        let source = try await connect()
        let txid: Txid
        var known = false
        do {
            txid = try await source.broadcast(transaction)
        } catch .rejected(let reason) where Self.meansAlreadyKnown(reason) {
            // Sending the same transaction again is no error: the node has it (mempool or chain).
            (txid, known) = (transaction.txid, true)
        } catch .rejected(let reason) where reason.contains("non-BIP68-final") || reason.contains("non-final") {
            await source.close()
            // A timelocked (recovery) path prepared early: the node names the reason; say what it means.
            throw ChainError.rejected(
                reason + " (a timelock of this transaction is not met yet: its nSequence needs more confirmations "
                    + "of the coins spent, or its nLockTime a later block; broadcast it again later)")
        } catch {
            await source.close()
            throw error
        }
        await source.close()
        return BroadcastReport(transaction: transaction, txid: txid, summary: summary, alreadyKnown: known)
    }

    /// The transaction to send and its fee (when every input's value is known).
    func prepared(_ signed: SignedInput) throws -> (Transaction, Amount?) {
        switch signed {
        case .transaction(let transaction):
            return (transaction, nil)
        case .chance(let text):
            let transaction: Transaction
            do { transaction = try text.finalTransaction() } catch { throw PSBTFlowError.chance("\(error)") }
            let previous = try store.transactions(
                walletID: wallet.id ?? -1, txids: Set(text.transaction.inputs.map(\.previousOutput.txid)))
            let psbt = try? ChanceConversion.psbt(
                from: text, account: Account(record: wallet), addresses: [], previousTransactions: previous)
            return (transaction, psbt.flatMap { PSBTFee.fee($0, transaction: transaction) })
        case .psbt(let psbt):
            let finalized = try PSBTFinalizer(store: store, wallet: wallet).finalize(psbt)
            let transaction = try finalized.extractTransaction()
            return (transaction, PSBTFee.fee(finalized, transaction: transaction))
        }
    }

    /// Whether a node's rejection says it has the transaction already (Core: `txn-already-known`,
    /// `txn-already-in-mempool`, `Transaction already in block chain`, `Transaction outputs already in utxo set`;
    /// Electrum servers pass these on).
    public static func meansAlreadyKnown(_ reason: String) -> Bool {
        let lower = reason.lowercased()
        return [
            "txn-already-known", "txn-already-in-mempool", "already in block chain", "already in utxo set",
            "already have transaction",
        ]
        .contains { lower.contains($0) }
    }
}
