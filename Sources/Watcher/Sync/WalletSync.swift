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
/// the batches checked within `commitInterval` are committed together in one transaction, so a killed sync resumes
/// where the next run finds it (BDK's full scan).
///
/// With a source whose `pipelineDepth` is above 1 (Electrum), the next batches are asked for before the last one is
/// checked and stored: the server works while the client parses and writes. A batch asked for beyond where
/// discovery stops (the last batch turned out unused) is dropped unread, so the result is the one-by-one result.
public struct WalletSync: Sendable {
    let store: Store
    let wallet: WalletRecord
    let account: Account
    let source: any ChainSource
    /// Scripts per request to the backend.
    public var batchSize: Int
    /// Batches in flight at once (the source's `pipelineDepth` unless set).
    public var pipelineDepth: Int
    /// How long a checked batch may wait to be written.
    ///
    /// The batches checked within it are committed in one SQLite transaction (`.zero`: each batch alone). Each commit
    /// writes every page it changed, and a batch's new transactions land on pages of the txid index all over the file:
    /// committed one batch of 20 addresses at a time, that index was three quarters of what a 100,000-transaction sync
    /// wrote (issue 33). A sync killed at any moment loses at most this much of its work, or a quarter of the time it
    /// had run when that is longer (`commitAgeDivisor`); one that fails first writes what it checked before.
    public var commitInterval: Duration = .seconds(1)
    /// A checked batch also waits for the time the sync has run divided by this, when that is longer than
    /// `commitInterval` (`0`: `commitInterval` alone; see `commitDue`).
    ///
    /// The pages of the txid index a commit writes grow with the wallet, so a commit every second wrote that index
    /// over again about 40 times in a 100,000-transaction sync (issue 33). Spaced by the sync's age, the commits
    /// number about 12 there and 6 at 20,000: they grow with the logarithm of the sync's length. A sync killed at any
    /// moment loses at most a quarter of the time it had run, and at most `commitInterval` in its first seconds.
    public var commitAgeDivisor = 4

    public init(store: Store, wallet: WalletRecord, source: any ChainSource, batchSize: Int? = nil) throws(StoreError) {
        self.store = store
        self.wallet = wallet
        account = try Account(record: wallet)
        self.source = source
        self.batchSize = max(1, min(batchSize ?? wallet.gapLimit, 100))
        pipelineDepth = max(1, min(source.pipelineDepth, 8))
    }

    /// One batch asked for and not yet stored.
    private struct Pending {
        var keychain: Keychain
        var start: Int
        var end: Int
        var batch: [AddressRecord]
        var task: Task<SyncUpdate, any Error>
    }

    /// Runs a full sync.
    ///
    /// - Throws: `SyncError`; a batch that fails leaves the batches before it committed and nothing of its own.
    public func run(progress: @Sendable (SyncProgress) -> Void = { _ in }) async throws(SyncError) -> SyncSummary {
        let walletID: Int64
        var tracker: UTXOTracker
        // The derived addresses by keychain and index.
        var addresses: [Keychain: [Int: AddressRecord]] = [:]
        var lastUsed: [Keychain: Int] = [:]
        // What the wallet holds, kept current batch by batch (rebuilding it from every stored transaction for each
        // batch made a sync quadratic in the wallet's transactions): for a source taking one batch at a time, which
        // is handed them all, these maps; a pipelined source gets those its scripts can name, from the tracker
        // (which holds them compactly: issue 33, 100,000 transactions).
        var known: [Txid: BlockAnchor?] = [:]
        var knownTransactions: [Txid: Transaction] = [:]
        do {
            walletID = try wallet.requireID()
            let records = try store.addresses(walletID: walletID)
            tracker = UTXOTracker(addresses: records, spentElsewhere: try store.spentElsewhere(walletID: walletID))
            // The stored transactions one at a time, each kept only as the tracker's record (and, for a source
            // taking one batch at a time, without its witnesses): a 100,000-transaction wallet's parsed
            // transactions are not all held at once (issue 33).
            let keepTransactions = pipelineDepth == 1
            try store.forEachTransaction(walletID: walletID) { record in
                tracker.addStored(record.txid, record.transaction, anchor: record.anchor)
                guard keepTransactions else { return }
                known[record.txid] = .some(record.anchor)
                knownTransactions[record.txid] = record.transaction.withoutWitnesses
            }
            tracker.loaded()
            for record in records {
                addresses[record.keychain, default: [:]][record.index] = record
                if record.used { lastUsed[record.keychain] = max(lastUsed[record.keychain] ?? -1, record.index) }
            }
        } catch {
            throw .store(error)
        }
        let gap = wallet.gapLimit
        func expected() -> Int {
            account.keychains.reduce(0) { sum, k in sum + (account.isRanged(k) ? (lastUsed[k] ?? -1) + 1 + gap : 1) }
        }
        func wanted(_ keychain: Keychain, _ start: Int) -> Bool {
            account.isRanged(keychain) ? start <= (lastUsed[keychain] ?? -1) + gap : start == 0
        }
        // Each keychain's descriptor text, made once (base58 and checksum: 1% of a sync when made per batch).
        let descriptorTexts = Dictionary(
            uniqueKeysWithValues: account.keychains.map { ($0, account.descriptor($0).description) })
        var checked = 0
        var newTransactions = 0
        var tip: BlockTip?
        var mode: String?
        let source = source
        progress(SyncProgress(checked: 0, expected: expected()))
        // Checked batches not yet written, and when the last were.
        var unwritten: [Store.SyncBatch] = []
        let started = ContinuousClock.now
        var lastCommit = started
        func commit() throws(SyncError) {
            guard !unwritten.isEmpty else { return }
            let batches = unwritten
            unwritten = []
            do {
                try store.apply(walletID: walletID, batches: batches)
            } catch {
                throw .store(error)
            }
            lastCommit = .now
        }
        do throws(SyncError) {
            for keychain in account.keychains {
                let ranged = account.isRanged(keychain)
                var pending: [Pending] = []
                var next = 0
                defer { for batch in pending { batch.task.cancel() } }
                while true {
                    // Keep `pipelineDepth` batches in flight. Past the first, a batch is asked for before the one
                    // before it is known to be used: when discovery stops short of it, it is dropped unread. None is
                    // asked for once the first in flight is known not to be wanted (discovery stops there: a batch more
                    // was 20 addresses derived, hashed and asked about for nothing, per keychain).
                    while pending.count < pipelineDepth,
                        ranged ? wanted(keychain, pending.first?.start ?? next) : next == 0
                    {
                        let end = ranged ? next + batchSize : 1
                        var batch: [AddressRecord] = []
                        for index in next..<end {
                            if let existing = addresses[keychain]?[index] {
                                batch.append(existing)
                                continue
                            }
                            do {
                                batch.append(try account.derive(keychain, index: index))
                            } catch {
                                throw .derivation("\(keychain) \(index): \(error)")
                            }
                        }
                        var outpoints: [OutPoint: Script] = [:]
                        for record in batch {
                            for outpoint in tracker.unspentOutputs(paying: record.script) {
                                outpoints[outpoint] = record.script
                            }
                        }
                        var request: SyncRequest
                        if pipelineDepth > 1 {
                            // Only the known transactions these scripts' histories can name: a request in flight
                            // holding the whole maps made the next change to them copy them (once per batch,
                            // quadratic).
                            var someKnown: [Txid: BlockAnchor?] = [:]
                            var someTransactions: [Txid: Transaction] = [:]
                            for record in batch {
                                for txid in tracker.relatedTransactions(record.script) {
                                    if let anchor = tracker.anchor(txid) { someKnown[txid] = anchor }
                                    if let transaction = tracker.transaction(txid) {
                                        someTransactions[txid] = transaction
                                    }
                                }
                            }
                            request = SyncRequest(
                                scripts: batch.map(\.script), known: someKnown, knownTransactions: someTransactions,
                                knownOutpoints: outpoints)
                        } else {
                            request = SyncRequest(
                                scripts: batch.map(\.script), known: known, knownTransactions: knownTransactions,
                                knownOutpoints: outpoints)
                        }
                        request.descriptors = account.keychains.map { k in
                            let needed = (lastUsed[k] ?? -1) + gap
                            return WatchedDescriptor(
                                descriptor: descriptorTexts[k] ?? account.descriptor(k).description,
                                isChange: k == .internal,
                                rangeEnd: account.isRanged(k) ? (k == keychain ? max(needed, end - 1) : needed) : nil)
                        }
                        let sending = request
                        let task = Task { () async throws -> SyncUpdate in try await source.sync(sending) }
                        pending.append(Pending(keychain: keychain, start: next, end: end, batch: batch, task: task))
                        next = end
                    }
                    guard !pending.isEmpty, wanted(keychain, pending[0].start) else { break }
                    let current = pending.removeFirst()
                    let update: SyncUpdate
                    do {
                        update = try await current.task.value
                    } catch let error as ChainError {
                        throw .chain(error)
                    } catch {
                        throw .chain(.protocolViolation("\(error)"))
                    }
                    for (offset, record) in current.batch.enumerated()
                    where !(update.histories[record.script] ?? []).isEmpty {
                        lastUsed[keychain] = max(lastUsed[keychain] ?? -1, current.start + offset)
                    }
                    // The txids the histories name (kept by the tracker, beside its own numbering of them): a set of
                    // them all was a second table of the wallet's txids (issue 33).
                    for entries in update.histories.values { for entry in entries { tracker.markSeen(entry.txid) } }
                    newTransactions += update.transactions.count
                    // What the sync keeps of the batch's transactions for its length: the tracker's compact records,
                    // and for a source taking one batch at a time, the transactions without witnesses (the store writes
                    // the whole transaction; the histories' checks read outputs and spent outpoints only). A
                    // 100,000-transaction wallet's signatures and keys are most of what it would hold (issue 33).
                    var kept = update
                    if pipelineDepth == 1 { kept.transactions = update.transactions.mapValues(\.withoutWitnesses) }
                    let changes = tracker.apply(addresses: current.batch, update: kept)
                    unwritten.append(Store.SyncBatch(addresses: current.batch, update: update, changes: changes))
                    let now = ContinuousClock.now
                    if Self.commitDue(
                        sinceCommit: now - lastCommit, age: now - started, interval: commitInterval,
                        divisor: commitAgeDivisor)
                    {
                        try commit()
                    }
                    if pipelineDepth == 1 { Self.merge(kept, into: &known, &knownTransactions) }
                    Self.merge(batch: current.batch, update: kept, into: &addresses)
                    tip = update.tip
                    mode = update.mode ?? mode
                    checked += current.batch.count
                    progress(SyncProgress(checked: checked, expected: max(expected(), checked)))
                }
                // Batches asked for beyond where discovery stopped: dropped unread (their tasks end on their own).
                for batch in pending { _ = await batch.task.result }
                pending = []
            }
            try commit()
        } catch {
            // What was checked before the failure is kept: the next sync starts from it. (A failed write is not
            // tried again: `commit` took its batches.)
            try? commit()
            throw error
        }
        let finalTip: BlockTip
        do {
            if let tip { finalTip = tip } else { finalTip = try await source.tip() }
        } catch {
            throw .chain(error)
        }
        let count: Int
        do {
            try store.finishSync(walletID: walletID, tip: finalTip, seen: tracker.seen, utxosCurrent: true)
            count = try store.transactionCount(walletID: walletID)
        } catch {
            throw .store(error)
        }
        return SyncSummary(
            tip: finalTip, scriptsChecked: checked, transactions: count, newTransactions: newTransactions, mode: mode)
    }

    /// Whether the checked batches are written now: `sinceCommit` (the time since the last commit, or since the sync
    /// began) has reached `interval`, and `age` (the time since the sync began) divided by `divisor` unless that is 0.
    static func commitDue(sinceCommit: Duration, age: Duration, interval: Duration, divisor: Int) -> Bool {
        sinceCommit >= interval && (divisor == 0 || sinceCommit * divisor >= age)
    }

    /// The wallet's transactions after `Store.apply(update)`: new ones added (an already stored one is kept),
    /// confirmations set, transactions a history lists as unconfirmed unanchored (`UTXOTracker.anchor` keeps the
    /// same for a pipelined source).
    static func merge(
        _ update: SyncUpdate, into known: inout [Txid: BlockAnchor?], _ transactions: inout [Txid: Transaction]
    ) {
        for (txid, transaction) in update.transactions where known[txid] == nil {
            known[txid] = .some(nil)
            transactions[txid] = transaction
        }
        for entries in update.histories.values {
            for entry in entries where entry.height == nil && known[entry.txid] != nil {
                known[entry.txid] = .some(nil)
            }
        }
        for (txid, anchor) in update.anchors where known[txid] != nil { known[txid] = .some(anchor) }
    }

    /// The wallet's addresses after `Store.apply(update)`: the batch's known, those with a history used.
    static func merge(
        batch: [AddressRecord], update: SyncUpdate, into addresses: inout [Keychain: [Int: AddressRecord]]
    ) {
        for var record in batch {
            if !(update.histories[record.script] ?? []).isEmpty { record.used = true }
            if let stored = addresses[record.keychain]?[record.index], stored.used { record.used = true }
            addresses[record.keychain, default: [:]][record.index] = record
        }
    }
}

extension Transaction {
    /// The transaction with every input's witness left out: its txid, outputs and spent outpoints are the same.
    var withoutWitnesses: Transaction {
        guard inputs.contains(where: { !$0.witness.isEmpty }) else { return self }
        var copy = self
        copy.inputs = inputs.map { input in
            var bare = input
            bare.witness = Witness()
            return bare
        }
        return copy
    }
}
