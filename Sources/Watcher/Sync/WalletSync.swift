import Bitcoin
import ChainCore
import Foundation

/// Progress of a sync, for a progress bar.
public struct SyncProgress: Sendable {
    /// Scripts checked so far.
    public var checked: Int
    /// Scripts expected (grows as used addresses push the gap further).
    public var expected: Int
}

/// What a sync did.
public struct SyncSummary: Sendable, Equatable {
    public var tip: BlockTip
    public var scriptsChecked: Int
    public var transactions: Int
    public var newTransactions: Int
    /// How the backend synced, when it has several ways (Bitcoin Core: `wallet NAME` or `scantxoutset (why)`).
    public var mode: String? = nil
}

/// Errors of a sync: the backend's, the store's, or a derivation.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    case chain(ChainError)
    case store(StoreError)
    case derivation(String)

    public var description: String {
        switch self {
        case .chain(let error): error.description
        case .store(let error): error.description
        case .derivation(let why): "cannot derive the wallet's addresses: \(why)"
        }
    }
}

/// Discovers a wallet's addresses to its gap limit and fetches their history from a `ChainSource`, batch by batch;
/// each batch is committed in one transaction, so a killed sync resumes where the next run finds it (BDK's full scan).
public struct WalletSync: Sendable {
    let store: Store
    let wallet: WalletRecord
    let account: Account
    let source: any ChainSource
    /// Scripts per request to the backend.
    public var batchSize: Int

    public init(store: Store, wallet: WalletRecord, source: any ChainSource, batchSize: Int? = nil) throws(StoreError) {
        self.store = store
        self.wallet = wallet
        account = try Account(record: wallet)
        self.source = source
        self.batchSize = max(1, min(batchSize ?? wallet.gapLimit, 100))
    }

    /// Runs a full sync.
    ///
    /// - Throws: `SyncError`; a batch that fails leaves the batches before it committed and nothing of its own.
    public func run(progress: @Sendable (SyncProgress) -> Void = { _ in }) async throws(SyncError) -> SyncSummary {
        let walletID: Int64
        var addresses: [AddressRecord]
        var stored: [TransactionRecord]
        do {
            walletID = try wallet.requireID()
            addresses = try store.addresses(walletID: walletID)
            stored = try store.transactions(walletID: walletID)
        } catch {
            throw .store(error)
        }
        let gap = wallet.gapLimit
        var lastUsed: [Keychain: Int] = [:]
        for keychain in account.keychains {
            lastUsed[keychain] = addresses.filter { $0.keychain == keychain && $0.used }.map(\.index).max() ?? -1
        }
        func expected() -> Int {
            account.keychains.reduce(0) { sum, k in sum + (account.isRanged(k) ? (lastUsed[k] ?? -1) + 1 + gap : 1) }
        }
        var checked = 0
        var seen: Set<Txid> = []
        var newTransactions = 0
        var tip: BlockTip?
        var mode: String?
        progress(SyncProgress(checked: 0, expected: expected()))
        for keychain in account.keychains {
            var start = 0
            let ranged = account.isRanged(keychain)
            while ranged ? start <= (lastUsed[keychain] ?? -1) + gap : start == 0 {
                let end = ranged ? start + batchSize : 1
                var batch: [AddressRecord] = []
                for index in start..<end {
                    if let known = addresses.first(where: { $0.keychain == keychain && $0.index == index }) {
                        batch.append(known)
                        continue
                    }
                    do {
                        batch.append(try account.derive(keychain, index: index))
                    } catch {
                        throw .derivation("\(keychain) \(index): \(error)")
                    }
                }
                var request = makeRequest(scripts: batch.map(\.script), stored: stored, addresses: addresses + batch)
                request.descriptors = account.keychains.map { k in
                    let needed = (lastUsed[k] ?? -1) + gap
                    return WatchedDescriptor(
                        descriptor: account.descriptor(k).description, isChange: k == .internal,
                        rangeEnd: account.isRanged(k) ? (k == keychain ? max(needed, end - 1) : needed) : nil)
                }
                let update: SyncUpdate
                do {
                    update = try await source.sync(request)
                } catch {
                    throw .chain(error)
                }
                for (offset, record) in batch.enumerated() where !(update.histories[record.script] ?? []).isEmpty {
                    lastUsed[keychain] = max(lastUsed[keychain] ?? -1, start + offset)
                }
                for entries in update.histories.values { for entry in entries { seen.insert(entry.txid) } }
                newTransactions += update.transactions.count
                do {
                    try store.apply(walletID: walletID, addresses: batch, update: update)
                    addresses = try store.addresses(walletID: walletID)
                } catch {
                    throw .store(error)
                }
                // What the batch stored, merged into the transactions already loaded (reloading them all after
                // each batch made a sync quadratic in the wallet's transactions).
                stored = Self.merge(update, into: stored)
                tip = update.tip
                mode = update.mode ?? mode
                checked += batch.count
                progress(SyncProgress(checked: checked, expected: max(expected(), checked)))
                start = end
            }
        }
        let finalTip: BlockTip
        do {
            if let tip { finalTip = tip } else { finalTip = try await source.tip() }
        } catch {
            throw .chain(error)
        }
        do {
            try store.finishSync(walletID: walletID, tip: finalTip, seen: seen)
            stored = try store.transactions(walletID: walletID)
        } catch {
            throw .store(error)
        }
        return SyncSummary(
            tip: finalTip, scriptsChecked: checked, transactions: stored.count, newTransactions: newTransactions,
            mode: mode)
    }

    /// `stored` after `Store.apply(update)`: new transactions added (an already stored one is kept), confirmations
    /// set, and transactions a history lists as unconfirmed unanchored.
    static func merge(_ update: SyncUpdate, into stored: [TransactionRecord]) -> [TransactionRecord] {
        var records = stored
        var position: [Txid: Int] = [:]
        for (i, record) in records.enumerated() { position[record.txid] = i }
        let now = Int(Date().timeIntervalSince1970)
        for (txid, transaction) in update.transactions where position[txid] == nil {
            position[txid] = records.count
            records.append(TransactionRecord(txid: txid, transaction: transaction, anchor: nil, firstSeen: now))
        }
        for entries in update.histories.values {
            for entry in entries where entry.height == nil {
                if let i = position[entry.txid] { records[i].anchor = nil }
            }
        }
        for (txid, anchor) in update.anchors {
            if let i = position[txid] { records[i].anchor = anchor }
        }
        return records
    }

    private func makeRequest(scripts: [Script], stored: [TransactionRecord], addresses: [AddressRecord]) -> SyncRequest
    {
        var known: [Txid: BlockAnchor?] = [:]
        var transactions: [Txid: Transaction] = [:]
        var outpoints: [OutPoint: Script] = [:]
        let wanted = Set(scripts)
        var spent: Set<OutPoint> = []
        for record in stored {
            known[record.txid] = .some(record.anchor)
            transactions[record.txid] = record.transaction
            for input in record.transaction.inputs { spent.insert(input.previousOutput) }
        }
        for record in stored {
            for (vout, output) in record.transaction.outputs.enumerated() where wanted.contains(output.scriptPubKey) {
                let outpoint = OutPoint(txid: record.txid, vout: UInt32(vout))
                if !spent.contains(outpoint) { outpoints[outpoint] = output.scriptPubKey }
            }
        }
        return SyncRequest(scripts: scripts, known: known, knownTransactions: transactions, knownOutpoints: outpoints)
    }
}
