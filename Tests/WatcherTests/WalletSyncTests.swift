import Bitcoin
import ChainCore
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Watcher

/// `WalletSync` against a `FixedChainSource`: discovery to the gap limit across batches, a reorg of a confirmed
/// transaction, the eviction of an unconfirmed one; no socket.
@Suite("WalletSync with an in-memory chain source")
struct WalletSyncTests {
    static func setUp() throws -> (Store, WalletRecord, Account) {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try StoreTests.makeWallet(store)
        return (store, wallet, try Account(record: wallet))
    }

    static func script(_ account: Account, _ index: Int, keychain: Keychain = .external) throws -> Script {
        try account.derive(keychain, index: index).script
    }

    @Test("discovery follows used addresses across batches and stops a gap limit past the last used one")
    func discoveryAcrossBatches() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        // Index 3, then 22 (inside the gap after 3, in a later batch), then 45 (beyond the gap after 22: never seen).
        let near = try TestTransactions.funding(try Self.script(account, 3), sats: 10_000, seed: 1)
        let far = try TestTransactions.funding(try Self.script(account, 22), sats: 20_000, seed: 2)
        let beyond = try TestTransactions.funding(try Self.script(account, 45), sats: 40_000, seed: 3)
        let source = FixedChainSource(
            tipHeight: 110, transactions: [near, far, beyond], heights: [near.txid: 100, far.txid: 101])
        var sync = try WalletSync(store: store, wallet: wallet, source: source)
        sync.batchSize = 5
        let summary = try await sync.run()
        // External: batches of 5 up to index 44 (last used 22 + gap 20 = 42, rounded up to the batch); change: 20.
        #expect(summary.scriptsChecked == 45 + 20)
        #expect(summary.transactions == 2)
        let utxos = try store.utxos(walletID: walletID)
        #expect(Set(utxos.map(\.outpoint.txid)) == [near.txid, far.txid])
        #expect(Set(utxos.map(\.index)) == [3, 22])
        #expect(utxos.allSatisfy { $0.height != nil })
        let used = try store.addresses(walletID: walletID).filter(\.used).map(\.index)
        #expect(used.sorted() == [3, 22])
        #expect(try store.syncedTip(walletID: walletID)?.height == 110)
    }

    @Test("pipelined (3 batches in flight): the same discovery; batches asked for beyond the gap are dropped unread")
    func pipelinedDiscovery() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        let near = try TestTransactions.funding(try Self.script(account, 3), sats: 10_000, seed: 1)
        let far = try TestTransactions.funding(try Self.script(account, 22), sats: 20_000, seed: 2)
        let beyond = try TestTransactions.funding(try Self.script(account, 45), sats: 40_000, seed: 3)
        let source = FixedChainSource(
            tipHeight: 110, transactions: [near, far, beyond], heights: [near.txid: 100, far.txid: 101])
        let recording = RecordingSource(source)
        var sync = try WalletSync(store: store, wallet: wallet, source: recording)
        sync.batchSize = 5
        sync.pipelineDepth = 3
        let summary = try await sync.run()
        // As one by one: external to index 44, change to 19; index 45's batch was asked for, then dropped.
        #expect(summary.scriptsChecked == 45 + 20)
        // Asked for: the batches in flight when the first beyond the gap came first (45 and 50 external, 20 and 25
        // change), and none after it (55 external, 30 change: the first in flight was then known not wanted).
        let asked = recording.asked.withLock { $0 }
        let last = try Self.script(account, 54)
        let dropped = try Self.script(account, 45)
        let notAsked = try Self.script(account, 55)
        let lastChange = try Self.script(account, 29, keychain: .internal)
        let notAskedChange = try Self.script(account, 30, keychain: .internal)
        #expect(asked.contains(last) && asked.contains(dropped) && asked.contains(lastChange))
        #expect(!asked.contains(notAsked) && !asked.contains(notAskedChange))
        #expect(asked.count == 55 + 30)
        #expect(summary.transactions == 2)
        let utxos = try store.utxos(walletID: walletID)
        #expect(Set(utxos.map(\.outpoint.txid)) == [near.txid, far.txid])
        #expect(try store.addresses(walletID: walletID).filter { $0.keychain == .external }.count == 45)
    }

    @Test("the UTXOs a sync writes batch by batch equal a full recomputation (spends, change found later, reorg)")
    func incrementalUTXOsEqualFullRecomputation() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        // Funding to external 0 and 7; a spend of the first paying change 2 (derived in a later batch than the
        // transaction is stored in), and a payment to change 2 whose own coin is then spent by a third transaction.
        let a = try TestTransactions.funding(try Self.script(account, 0), sats: 100_000, seed: 21)
        let b = try TestTransactions.funding(try Self.script(account, 7), sats: 70_000, seed: 22)
        let spend = try TestTransactions.spend(
            [OutPoint(txid: a.txid, vout: 0)],
            outputs: [
                (TestTransactions.foreignScript(0xAB), 50_000),
                (try Self.script(account, 2, keychain: .internal), 49_000),
            ])
        let spendChange = try TestTransactions.spend(
            [OutPoint(txid: spend.txid, vout: 1)],
            outputs: [(try Self.script(account, 8), 48_000)])
        var source = FixedChainSource(
            tipHeight: 120, transactions: [a, b, spend, spendChange],
            heights: [a.txid: 100, b.txid: 101, spend.txid: 102])
        for depth in [1, 3] {
            var sync = try WalletSync(store: store, wallet: wallet, source: source)
            sync.batchSize = 4
            sync.pipelineDepth = depth
            _ = try await sync.run()
            let incremental = try store.utxos(walletID: walletID)
            #expect(try Self.misattributedUTXOs(store) == "UTXO rows 2, keyed by another transaction's row: 0")
            // Store.apply without changes given recomputes every UTXO from the stored transactions.
            try store.apply(walletID: walletID, addresses: [], update: SyncUpdate(tip: try await source.tip()))
            #expect(try store.utxos(walletID: walletID) == incremental)
            #expect(
                Set(incremental.map(\.outpoint)) == [
                    OutPoint(txid: b.txid, vout: 0), OutPoint(txid: spendChange.txid, vout: 0),
                ])
            // The next round: a reorg moves b to another height, and a is confirmed one block later.
            source.heights = [a.txid: 103, b.txid: 104, spend.txid: 104]
        }
        #expect(try store.utxos(walletID: walletID).first { $0.outpoint.txid == b.txid }?.height == 104)
    }

    @Test("the control: the coin at index 45 is found once index 30 is used (10, 30, 45: each within 20 of the last)")
    func discoveryControl() async throws {
        let (store, wallet, account) = try Self.setUp()
        let a = try TestTransactions.funding(try Self.script(account, 10), sats: 20_000, seed: 2)
        let b = try TestTransactions.funding(try Self.script(account, 30), sats: 30_000, seed: 4)
        let c = try TestTransactions.funding(try Self.script(account, 45), sats: 40_000, seed: 3)
        let source = FixedChainSource(tipHeight: 110, transactions: [a, b, c])
        var sync = try WalletSync(store: store, wallet: wallet, source: source)
        sync.batchSize = 7
        _ = try await sync.run()
        let utxos = try store.utxos(walletID: try wallet.requireID())
        #expect(Set(utxos.map(\.index)) == [10, 30, 45])
        #expect(utxos.allSatisfy { $0.height == nil })
    }

    @Test("a reorg moves a confirmed transaction to another block, then back to the mempool")
    func reorgOfConfirmedTransaction() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        let tx = try TestTransactions.funding(try Self.script(account, 0), sats: 50_000, seed: 7)
        var source = FixedChainSource(tipHeight: 100, transactions: [tx], heights: [tx.txid: 100])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        var stored = try #require(try store.transactions(walletID: walletID).first)
        #expect(stored.anchor == BlockAnchor(height: 100, blockHash: FixedChainSource.hash(100), verified: true))

        // The block at 100 is replaced by another branch, which confirms the transaction one block later.
        source.tipHeight = 102
        source.heights = [tx.txid: 101]
        source.blockHashes = [100: FixedChainSource.hash(100, fork: 1), 101: FixedChainSource.hash(101, fork: 1)]
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        stored = try #require(try store.transactions(walletID: walletID).first)
        #expect(stored.anchor?.height == 101)
        #expect(stored.anchor?.blockHash == FixedChainSource.hash(101, fork: 1))
        #expect(try store.utxos(walletID: walletID).first?.height == 101)

        // A deeper reorg sends it back to the mempool: unconfirmed, still the wallet's coin.
        source.heights = [:]
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        stored = try #require(try store.transactions(walletID: walletID).first)
        #expect(stored.anchor == nil)
        let utxo = try #require(try store.utxos(walletID: walletID).first)
        #expect(utxo.height == nil && utxo.value.sats == 50_000)
    }

    @Test("an unconfirmed transaction the server no longer lists is evicted with its coins; a confirmed one stays")
    func evictionOfUnconfirmed() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        let confirmed = try TestTransactions.funding(try Self.script(account, 0), sats: 50_000, seed: 8)
        let pending = try TestTransactions.funding(try Self.script(account, 1), sats: 7_000, seed: 9)
        var source = FixedChainSource(
            tipHeight: 100, transactions: [confirmed, pending], heights: [confirmed.txid: 99])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        #expect(try store.utxos(walletID: walletID).count == 2)

        source.transactions = [confirmed]  // dropped from the mempool (expired or replaced)
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        #expect(try store.transactions(walletID: walletID).map(\.txid) == [confirmed.txid])
        #expect(try store.utxos(walletID: walletID).map(\.outpoint.txid) == [confirmed.txid])
    }

    @Test("a spend by the wallet removes the spent coin and adds the change")
    func spendUpdatesCoins() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        let funding = try TestTransactions.funding(try Self.script(account, 0), sats: 100_000, seed: 10)
        let spend = try TestTransactions.spend(
            [OutPoint(txid: funding.txid, vout: 0)],
            outputs: [
                (TestTransactions.foreignScript(0xAA), 60_000),
                (try Self.script(account, 0, keychain: .internal), 39_000),
            ])
        let source = FixedChainSource(
            tipHeight: 100, transactions: [funding, spend], heights: [funding.txid: 90, spend.txid: 95])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        let utxos = try store.utxos(walletID: walletID)
        #expect(utxos.map(\.outpoint) == [OutPoint(txid: spend.txid, vout: 1)])
        #expect(utxos.first?.keychain == .internal)
    }

    /// The wallet of `discoveryAcrossBatches`: coins at index 3 and 22, one at 45 beyond the gap.
    static func threeFundings(_ account: Account) throws -> FixedChainSource {
        let near = try TestTransactions.funding(try Self.script(account, 3), sats: 10_000, seed: 1)
        let far = try TestTransactions.funding(try Self.script(account, 22), sats: 20_000, seed: 2)
        let beyond = try TestTransactions.funding(try Self.script(account, 45), sats: 40_000, seed: 3)
        return FixedChainSource(
            tipHeight: 110, transactions: [near, far, beyond], heights: [near.txid: 100, far.txid: 101])
    }

    /// What a sync stored: transactions with their confirmations, coins, used addresses, the synced tip.
    static func stored(_ store: Store, _ walletID: Int64) throws -> [String] {
        try store.transactions(walletID: walletID).map { "tx \($0.txid) \(String(describing: $0.anchor))" }.sorted()
            + store.utxos(walletID: walletID).map { "utxo \($0.outpoint) \($0.value) \($0.index)" }.sorted()
            + store.addresses(walletID: walletID).map { "address \($0.keychain) \($0.index) \($0.used)" }.sorted()
            + ["tip \(String(describing: try store.syncedTip(walletID: walletID)))"]
            + [try Self.misattributedUTXOs(store)]
    }

    /// The UTXO rows not keyed by the row of their own transaction (its txid and wallet), and the row count.
    static func misattributedUTXOs(_ store: Store) throws -> String {
        try store.pool.read { db in
            let wrong = try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM utxo u LEFT JOIN tx t ON t.id = u.tx_id
                    WHERE t.id IS NULL OR t.txid != u.txid OR t.wallet_id != u.wallet_id
                    """)
            let all = try Int.fetchOne(db, sql: "SELECT count(*) FROM utxo")
            return "UTXO rows \(all ?? -1), keyed by another transaction's row: \(wrong ?? -1)"
        }
    }

    @Test("batches checked within the commit interval are written in one commit, to the state of one commit each")
    func groupedCommits() async throws {
        var results: [[String]] = []
        var commits: [Int] = []
        // Each batch alone; grouped by the interval; grouped by the sync's age (divided by 1, a batch waits as long as
        // the sync has run: after the first batch's commit, none is due before the end).
        for (interval, divisor) in [(Duration.zero, 0), (.seconds(3600), 0), (.zero, 1)] {
            let (store, wallet, account) = try Self.setUp()
            let counter = CommitCounter()
            store.pool.add(transactionObserver: counter)
            var sync = try WalletSync(store: store, wallet: wallet, source: try Self.threeFundings(account))
            sync.batchSize = 5
            sync.commitInterval = interval
            sync.commitAgeDivisor = divisor
            let summary = try await sync.run()
            #expect(summary.scriptsChecked == 45 + 20)
            results.append(try Self.stored(store, try wallet.requireID()))
            commits.append(counter.commits.withLock { $0 })
        }
        #expect(results[0] == results[1])
        #expect(results[0] == results[2])
        #expect(results[0].filter { $0.hasPrefix("utxo ") }.count == 2)
        #expect(results[1].last == "UTXO rows 2, keyed by another transaction's row: 0")
        // One commit per batch (9 external, 4 change) and the end of the sync; grouped: the batches, then the end;
        // by the age: the first batch, the others, the end.
        #expect(commits == [9 + 4 + 1, 2, 3])
    }

    @Test("the commits are spaced by the longer of the interval and a quarter of the sync's age")
    func commitSpacing() {
        func due(_ since: Int, _ age: Int, divisor: Int = 4) -> Bool {
            WalletSync.commitDue(
                sinceCommit: .milliseconds(since), age: .milliseconds(age), interval: .seconds(1), divisor: divisor)
        }
        // The first seconds: the interval alone.
        #expect(due(1000, 1000))
        #expect(due(1000, 3900))
        #expect(!due(900, 2000))
        // Later, a quarter of the age: 10 s at 40 s.
        #expect(!due(9900, 40000))
        #expect(due(10000, 40000))
        // Without the age: every interval, at any age.
        #expect(due(1000, 40000, divisor: 0))
        // The commits of a 45-second sync checked every 50 ms, and of a 9-second one.
        func commits(_ seconds: Int) -> Int {
            var last = 0
            var count = 0
            for now in stride(from: 50, through: seconds * 1000, by: 50) where due(now - last, now) {
                count += 1
                last = now
            }
            return count
        }
        #expect(commits(45) == 12)
        #expect(commits(9) == 6)
    }

    @Test("a server failure mid-sync: the batches checked before it are written, grouped or not; nothing after it")
    func failureKeepsCheckedBatches() async throws {
        for interval in [Duration.zero, .seconds(3600)] {
            let (store, wallet, account) = try Self.setUp()
            let walletID = try wallet.requireID()
            let fixed = try Self.threeFundings(account)
            // Batches of 5: the first (indexes 0-4) holds the coin at 3; the fifth (20-24), the one at 22. The
            // fourth request fails.
            var sync = try WalletSync(store: store, wallet: wallet, source: RecordingSource(fixed, failAfter: 3))
            sync.batchSize = 5
            sync.commitInterval = interval
            sync.commitAgeDivisor = 0
            await #expect(throws: SyncError.chain(.connectionClosed(host: "fixed", port: 1))) {
                try await sync.run()
            }
            #expect(try store.utxos(walletID: walletID).map(\.index) == [3], "interval \(interval)")
            #expect(try store.addresses(walletID: walletID).map(\.index).sorted() == Array(0..<15))
            #expect(try store.syncedTip(walletID: walletID) == nil)
            // The next sync completes from there.
            var again = try WalletSync(store: store, wallet: wallet, source: fixed)
            again.batchSize = 5
            _ = try await again.run()
            #expect(try store.utxos(walletID: walletID).map(\.index).sorted() == [3, 22])
        }
    }

    @Test("a backend error aborts the sync and leaves the database as it was")
    func backendErrorLeavesStore() async throws {
        let (store, wallet, account) = try Self.setUp()
        let walletID = try wallet.requireID()
        let tx = try TestTransactions.funding(try Self.script(account, 0), sats: 50_000, seed: 11)
        _ = try await WalletSync(
            store: store, wallet: wallet,
            source: FixedChainSource(tipHeight: 100, transactions: [tx], heights: [tx.txid: 100])
        ).run()
        let failing = FailingChainSource(error: .invalidField(server: "x", field: "height", value: "-1"))
        await #expect(throws: SyncError.chain(.invalidField(server: "x", field: "height", value: "-1"))) {
            try await WalletSync(store: store, wallet: wallet, source: failing).run()
        }
        #expect(try store.transactions(walletID: walletID).map(\.txid) == [tx.txid])
        #expect(try store.syncedTip(walletID: walletID)?.height == 100)
    }
}

/// Counts the commits of a store's database.
final class CommitCounter: TransactionObserver, Sendable {
    let commits = Mutex(0)
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

/// A source whose every call fails with one error.
struct FailingChainSource: ChainSource {
    var error: ChainError
    var displayName: String { "failing" }
    func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate { throw error }
    func tip() async throws(ChainError) -> BlockTip { throw error }
    func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate { throw error }
    func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid { throw error }
    func serverInfo() async throws(ChainError) -> ServerInfo { throw error }
    func nodeChain() async throws(ChainError) -> NodeChain { throw error }
    func close() async {}
}

/// A source that records every script a sync asks about, answering from `FixedChainSource`.
final class RecordingSource: ChainSource, Sendable {
    let inner: FixedChainSource
    let asked = Mutex<[Script]>([])
    /// Requests answered before every later one fails (`nil`: all are answered).
    let failAfter: Int?
    let answered = Mutex(0)

    init(_ inner: FixedChainSource, failAfter: Int? = nil) {
        self.inner = inner
        self.failAfter = failAfter
    }

    var displayName: String { inner.displayName }
    var pipelineDepth: Int { inner.pipelineDepth }
    func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        let count = answered.withLock { count in
            count += 1
            return count
        }
        if let failAfter, count > failAfter { throw .connectionClosed(host: "fixed", port: 1) }
        asked.withLock { $0 += request.scripts }
        return try await inner.sync(request)
    }
    func tip() async throws(ChainError) -> BlockTip { try await inner.tip() }
    func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        try await inner.feeRate(targetBlocks: targetBlocks)
    }
    func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        try await inner.broadcast(transaction)
    }
    func nodeChain() async throws(ChainError) -> NodeChain { try await inner.nodeChain() }
    func serverInfo() async throws(ChainError) -> ServerInfo { try await inner.serverInfo() }
    func close() async {}
}
