import Bitcoin
import ChainCore
import Foundation
import GRDB
import TestSupport
import Testing

@testable import Watcher

/// The kept sums of migration v8 (`wallet_sums`): after every step of random histories (syncs, reorgs, unconfirmed
/// transactions dropped, spends, freezes, coinbase outputs maturing, a wallet deleted), what is kept equals what a
/// full recomputation gives, and `balance` equals the balance of every coin read.
@Suite("Kept sums: balance and transaction count kept with every write")
struct KeptSumsTests {
    /// The chain a random history is played on, and what the test knows of it.
    struct World {
        var source: FixedChainSource
        var generator: SplitMix64
        var serial: UInt64 = 0

        mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
    }

    /// Checks the kept sums against a full recomputation, and `balance` / `transactionCount` against every row.
    static func check(_ store: Store, _ walletID: Int64, tip: Int?, _ step: String) throws {
        let sums = try store.keptSums(walletID: walletID)
        #expect(sums.kept == sums.recomputed, "kept sums after \(step)")
        let balance = try store.balance(walletID: walletID, tipHeight: tip)
        #expect(balance == Balance(utxos: try store.utxos(walletID: walletID), tipHeight: tip), "balance after \(step)")
        #expect(
            try store.transactionCount(walletID: walletID) == (try store.transactions(walletID: walletID)).count,
            "transaction count after \(step)")
    }

    /// A new transaction paying the wallet `sats` at a random address (sometimes a coinbase, sometimes with a
    /// foreign output beside), confirmed at a random height or unconfirmed.
    static func receive(_ world: inout World, account: Account) throws {
        world.serial += 1
        let keychain: Keychain = world.chance(30) ? .internal : .external
        let script = try account.derive(keychain, index: world.int(0..<12)).script
        let sats = UInt64(world.int(1_000..<5_000_000))
        let coinbase = world.chance(20)
        // Each transaction is made unique by its serial (the coinbase's script, the funding's foreign coin).
        var serial = world.serial.littleEndian
        let tag = withUnsafeBytes(of: &serial) { Array($0) }
        let input =
            coinbase
            ? TxIn(
                previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0, count: 32)), vout: 0xFFFF_FFFF),
                scriptSig: Script([UInt8(tag.count)] + tag))
            : TxIn(previousOutput: OutPoint(txid: try Txid(bytes: tag + [UInt8](repeating: 0xEE, count: 24)), vout: 1))
        var outputs = [TxOut(value: try Amount(sats: sats), scriptPubKey: script)]
        if world.chance(40) {
            outputs.append(TxOut(value: try Amount(sats: 7_777), scriptPubKey: TestTransactions.foreignScript(0xAB)))
        }
        let tx = Transaction(inputs: [input], outputs: outputs)
        world.source.transactions.append(tx)
        if coinbase || world.chance(70) {
            world.source.heights[tx.txid] = world.int(max(1, world.source.tipHeight - 150)..<world.source.tipHeight + 1)
        }
    }

    /// A spend of one to three of the wallet's coins, paying a foreign script and change back.
    static func spend(_ world: inout World, store: Store, walletID: Int64, account: Account) throws {
        let coins = try store.utxos(walletID: walletID).filter { !$0.isCoinbase }
        guard !coins.isEmpty else { return }
        let chosen = (0..<world.int(1..<4)).map { _ in coins[world.int(0..<coins.count)] }
        let picked = Dictionary(chosen.map { ($0.outpoint, $0) }, uniquingKeysWith: { a, _ in a })
        let total = picked.values.reduce(UInt64(0)) { $0 + $1.value.sats }
        guard total > 3_000 else { return }
        let change = try account.derive(.internal, index: world.int(0..<12)).script
        let tx = try TestTransactions.spend(
            Array(picked.keys).sorted { $0.description < $1.description },
            outputs: [(TestTransactions.foreignScript(0xCD), 1_000), (change, total - 2_000)])
        world.source.transactions.append(tx)
        if world.chance(50) { world.source.heights[tx.txid] = world.source.tipHeight }
    }

    /// One random history of `steps` syncs on a fresh wallet, checked after each step.
    static func play(seed: UInt64, steps: Int) async throws {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try StoreTests.makeWallet(store)
        let walletID = try wallet.requireID()
        let account = try Account(record: wallet)
        var world = World(
            source: FixedChainSource(tipHeight: 200, transactions: []), generator: SplitMix64(seed: seed))
        try check(store, walletID, tip: nil, "creating the wallet")
        for step in 0..<steps {
            var did: [String] = []
            for _ in 0..<world.int(1..<4) {
                switch world.int(0..<7) {
                case 0, 1:
                    try receive(&world, account: account)
                    did.append("receive")
                case 2:
                    try spend(&world, store: store, walletID: walletID, account: account)
                    did.append("spend")
                case 3:
                    // A reorg: a confirmed transaction moves to another block, or back to the mempool.
                    let confirmed = Array(world.source.heights.keys)
                    guard !confirmed.isEmpty else { continue }
                    let txid = confirmed[world.int(0..<confirmed.count)]
                    world.source.heights[txid] = world.chance(50) ? nil : world.source.tipHeight
                    world.source.blockHashes[world.source.tipHeight] = FixedChainSource.hash(
                        world.source.tipHeight, fork: step + 1)
                    did.append("reorg")
                case 4:
                    // An unconfirmed transaction none of the chain's transactions spends is dropped (evicted).
                    let spent = Set(world.source.transactions.flatMap { $0.inputs.map(\.previousOutput.txid) })
                    let droppable = world.source.transactions.filter {
                        world.source.heights[$0.txid] == nil && !spent.contains($0.txid)
                    }
                    guard !droppable.isEmpty else { continue }
                    let drop = droppable[world.int(0..<droppable.count)].txid
                    world.source.transactions.removeAll { $0.txid == drop }
                    did.append("evict")
                case 5:
                    // Coinbase outputs mature as the tip moves on.
                    world.source.tipHeight += world.int(1..<120)
                    did.append("tip")
                default:
                    let coins = try store.utxos(walletID: walletID)
                    guard !coins.isEmpty else { continue }
                    let coin = coins[world.int(0..<coins.count)]
                    try store.setFrozen([coin.outpoint], frozen: !coin.frozen, walletID: walletID)
                    try check(store, walletID, tip: world.source.tipHeight, "freezing")
                    did.append("freeze")
                }
            }
            var sync = try WalletSync(store: store, wallet: wallet, source: world.source)
            sync.batchSize = world.int(3..<30)
            _ = try await sync.run()
            try check(store, walletID, tip: world.source.tipHeight, "seed \(seed) step \(step): \(did)")
            if world.chance(15) {
                // The other write path: every UTXO recomputed from the stored transactions.
                try store.apply(
                    walletID: walletID, addresses: [], update: SyncUpdate(tip: try await world.source.tip()))
                try check(store, walletID, tip: world.source.tipHeight, "seed \(seed) step \(step): recomputed")
            }
        }
        #expect(try store.transactionCount(walletID: walletID) > 0)
        // Deleting the wallet takes its kept row; another wallet's row is untouched.
        let other = try StoreTests.makeWallet(store, name: "other")
        try store.deleteWallet(id: walletID)
        #expect(try store.keptSums(walletID: walletID).kept == nil)
        let otherSums = try store.keptSums(walletID: try other.requireID())
        #expect(otherSums.kept == [0, 0, 0] && otherSums.recomputed == [0, 0, 0])
    }

    @Test("random histories: the kept sums equal a full recomputation after every step", arguments: [1, 2, 3, 4])
    func randomHistories(seed: UInt64) async throws {
        try await Self.play(seed: seed, steps: 25)
    }

    @Test("the control: a kept sum made stale on purpose is caught, and `balance` shows it")
    func staleSumIsCaught() async throws {
        let (store, wallet, account) = try WalletSyncTests.setUp()
        let walletID = try wallet.requireID()
        let tx = try TestTransactions.funding(try WalletSyncTests.script(account, 0), sats: 50_000, seed: 31)
        let source = FixedChainSource(tipHeight: 100, transactions: [tx], heights: [tx.txid: 99])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        #expect(try store.keptSums(walletID: walletID).kept == [0, 50_000, 1])
        try store.write { db in
            try db.execute(
                sql: "UPDATE wallet_sums SET confirmed = confirmed + 1 WHERE wallet_id = ?", arguments: [walletID])
        }
        let sums = try store.keptSums(walletID: walletID)
        #expect(sums.kept != sums.recomputed)
        #expect(try store.balance(walletID: walletID, tipHeight: 100).confirmed == 50_001)
        #expect(Balance(utxos: try store.utxos(walletID: walletID), tipHeight: 100).confirmed == 50_000)
    }

    @Test("the control: without recursive triggers, a replaced UTXO row would be counted twice")
    func replaceNeedsRecursiveTriggers() throws {
        let (store, wallet, account) = try WalletSyncTests.setUp()
        let walletID = try wallet.requireID()
        let receive = try account.derive(.external, index: 0)
        let tx = try TestTransactions.funding(receive.script, sats: 40_000, seed: 41)
        try store.apply(
            walletID: walletID, addresses: [receive],
            update: SyncUpdate(
                tip: BlockTip(height: 10, hash: String(repeating: "0", count: 64)),
                histories: [receive.script: [HistoryEntry(txid: tx.txid, height: nil)]], transactions: [tx.txid: tx]))
        #expect(try store.keptSums(walletID: walletID).kept == [40_000, 0, 1])
        // A sync's batch that confirms the coin writes its row again (`INSERT OR REPLACE`).
        func confirm(at height: Int) throws {
            let row = UTXORow(
                value: 40_000, script: receive.script, keychain: 0, index: 0, height: height, coinbase: false)
            try store.apply(
                walletID: walletID, addresses: [],
                update: SyncUpdate(tip: BlockTip(height: 10, hash: String(repeating: "0", count: 64))),
                utxoChanges: UTXOChanges(removed: [], written: [OutPoint(txid: tx.txid, vout: 0): row]))
        }
        // As every connection of the store has it: the replaced row leaves the unconfirmed sum.
        try confirm(at: 9)
        #expect(try store.keptSums(walletID: walletID).kept == [0, 40_000, 1])
        try store.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA recursive_triggers = OFF") }
        defer {
            try? store.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA recursive_triggers = ON") }
        }
        try confirm(at: 8)
        let sums = try store.keptSums(walletID: walletID)
        #expect(sums.kept == [0, 80_000, 1] && sums.recomputed == [0, 40_000, 1])
    }

    @Test("the balance's query reads the kept row, the coinbase index and the labels: no scan of the wallet's coins")
    func balanceQueryPlan() throws {
        let (store, wallet, _) = try WalletSyncTests.setUp()
        let plan = try store.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + Store.balanceSQL,
                arguments: ["tip": 100, "maturity": 100, "wallet": try wallet.requireID()]
            ).map { row -> String in row["detail"] }
        }
        let text = plan.joined(separator: "; ")
        #expect(text.contains("utxo_coinbase (wallet_id=? AND height>?)"), "\(text)")
        #expect(text.contains("SEARCH s USING INTEGER PRIMARY KEY"), "\(text)")
        #expect(!text.contains("utxo_spend_order") && !text.contains("SCAN utxo"), "\(text)")
    }

    @Test("a database from before v8 gets its sums on open, equal to every row's; then kept")
    func migrationComputesSums() async throws {
        let directory = StoreTests.tempDir()
        let (walletID, source): (Int64, FixedChainSource)
        do {
            let store = try Store(directory: directory)
            let wallet = try StoreTests.makeWallet(store)
            walletID = try wallet.requireID()
            let account = try Account(record: wallet)
            let a = try TestTransactions.funding(try WalletSyncTests.script(account, 0), sats: 60_000, seed: 51)
            let b = try TestTransactions.funding(try WalletSyncTests.script(account, 3), sats: 9_000, seed: 52)
            source = FixedChainSource(tipHeight: 100, transactions: [a, b], heights: [a.txid: 90])
            _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
            // As a database written before migration v8 is.
            try store.write { db in
                for name in try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'wallet_sums%'")
                {
                    try db.execute(sql: "DROP TRIGGER \(name)")
                }
                try db.execute(sql: "DROP TABLE wallet_sums")
                try db.execute(sql: "DROP INDEX utxo_coinbase")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8-wallet-sums'")
            }
        }
        let store = try Store(directory: directory)
        #expect(try store.appliedMigrations() == Store.migrationNames)
        #expect(try store.keptSums(walletID: walletID).kept == [9_000, 60_000, 2])
        try Self.check(store, walletID, tip: 100, "the migration")
        let wallet = try store.wallets()[0]
        var next = source
        next.heights[next.transactions[1].txid] = 100
        _ = try await WalletSync(store: store, wallet: wallet, source: next).run()
        #expect(try store.keptSums(walletID: walletID).kept == [0, 69_000, 2])
    }
}
