import Bitcoin
import ChainCore
import Foundation
import GRDB
import Testing

@testable import Watcher

/// The sync's compact `UTXOTracker` (issue 33: what it keeps of a transaction instead of the parsed one) and the
/// store's one-at-a-time read of the stored transactions a sync starts from.
@Suite("UTXOTracker's compact records")
struct UTXOTrackerTests {
    @Test("what the tracker keeps of a transaction: its spent outpoints and outputs, so a history check reads the same")
    func compactRecord() throws {
        let (_, _, account) = try WalletSyncTests.setUp()
        let receive = try account.derive(.external, index: 0)
        let change = try account.derive(.internal, index: 0)
        let funding = try TestTransactions.funding(receive.script, sats: 100_000, seed: 31)
        var spend = try TestTransactions.spend(
            [
                OutPoint(txid: funding.txid, vout: 0),
                OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 3),
            ],
            outputs: [(TestTransactions.foreignScript(0xCD), 60_000), (change.script, 39_000)])
        spend.inputs[0].witness = Witness([[1, 2, 3], [4, 5]])
        let tracker = UTXOTracker(
            addresses: [receive, change],
            transactions: [
                TransactionRecord(txid: funding.txid, transaction: funding, anchor: nil, firstSeen: 0),
                TransactionRecord(
                    txid: spend.txid, transaction: spend,
                    anchor: BlockAnchor(height: 7, blockHash: "ab", verified: true), firstSeen: 0),
            ], spentElsewhere: [])
        for original in [funding, spend] {
            let kept = try #require(tracker.transaction(original.txid))
            #expect(kept.outputs == original.outputs)
            #expect(kept.inputs.map(\.previousOutput) == original.inputs.map(\.previousOutput))
            #expect(kept.inputs.allSatisfy { $0.witness.isEmpty })
        }
        #expect(tracker.transaction(try Txid(bytes: [UInt8](repeating: 9, count: 32))) == nil)  // only spent from
        // The receive coin is spent by `spend`; its change is the one unspent output to the wallet.
        #expect(tracker.unspentOutputs(paying: receive.script).isEmpty)
        #expect(tracker.unspentOutputs(paying: change.script) == [OutPoint(txid: spend.txid, vout: 1)])
        #expect(tracker.relatedTransactions(receive.script) == [funding.txid, spend.txid])
        #expect(tracker.unspentCount == 1)
        #expect(tracker.anchor(spend.txid) == .some(BlockAnchor(height: 7, blockHash: "ab", verified: true)))
        #expect(tracker.anchor(funding.txid) == .some(nil))
        // The history check of a pipelined source passes on what the tracker kept, as on the originals, and fails
        // alike for an entry that neither pays nor spends from the script (the control).
        let verifier = ProofVerifier(network: .main)
        let entries = [HistoryEntry(txid: funding.txid, height: nil), HistoryEntry(txid: spend.txid, height: 7)]
        try verifier.verifyHistory(script: receive.script, entries: entries) { tracker.transaction($0) }
        #expect(throws: ChainError.self) {
            try verifier.verifyHistory(
                script: TestTransactions.foreignScript(0xEE), entries: entries
            ) { tracker.transaction($0) }
        }
    }

    @Test("a batch changes only the rows it moves: a confirmation rewrites its coin, an unchanged one is not written")
    func batchChanges() throws {
        let (_, _, account) = try WalletSyncTests.setUp()
        let receive = try account.derive(.external, index: 0)
        let later = try account.derive(.external, index: 1)
        let a = try TestTransactions.funding(receive.script, sats: 10_000, seed: 41)
        let b = try TestTransactions.funding(later.script, sats: 20_000, seed: 42)
        var tracker = UTXOTracker(addresses: [receive], spentElsewhere: [])
        tracker.loaded()
        let tip = BlockTip(height: 10, hash: "00")
        // b pays a script not yet derived: stored, no coin until its address comes.
        var changes = tracker.apply(
            addresses: [], update: SyncUpdate(tip: tip, transactions: [a.txid: a, b.txid: b]))
        #expect(Set(changes.written.keys) == [OutPoint(txid: a.txid, vout: 0)])
        #expect(changes.written.values.first?.height == nil)
        changes = tracker.apply(addresses: [later], update: SyncUpdate(tip: tip))
        #expect(Set(changes.written.keys) == [OutPoint(txid: b.txid, vout: 0)])
        #expect(changes.written.values.first?.index == 1 && changes.written.values.first?.value == 20_000)
        // a confirmed: its row rewritten with the height; b's anchor repeated at the same height: nothing.
        let anchor = BlockAnchor(height: 9, blockHash: "cd", verified: true)
        changes = tracker.apply(addresses: [], update: SyncUpdate(tip: tip, anchors: [a.txid: anchor]))
        #expect(changes.written.map(\.key) == [OutPoint(txid: a.txid, vout: 0)])
        #expect(changes.written.values.first?.height == 9)
        changes = tracker.apply(addresses: [], update: SyncUpdate(tip: tip, anchors: [a.txid: anchor]))
        #expect(changes.written.isEmpty && changes.removed.isEmpty)
        // Another block at the same height (a reorg): the anchor the next request names moves, the row does not.
        let moved = BlockAnchor(height: 9, blockHash: "ef", verified: false)
        changes = tracker.apply(addresses: [], update: SyncUpdate(tip: tip, anchors: [a.txid: moved]))
        #expect(changes.written.isEmpty && changes.removed.isEmpty)
        #expect(tracker.anchor(a.txid) == .some(moved))
        #expect(tracker.anchor(b.txid) == .some(nil))
        #expect(tracker.anchor(try Txid(bytes: [UInt8](repeating: 41, count: 32))) == nil)  // only spent from
        // Listed unconfirmed again: unanchored, its row rewritten without a height.
        changes = tracker.apply(
            addresses: [],
            update: SyncUpdate(tip: tip, histories: [receive.script: [HistoryEntry(txid: a.txid, height: nil)]]))
        #expect(changes.written.values.map(\.height) == [nil])
        #expect(tracker.anchor(a.txid) == .some(nil))
        // Reported spent elsewhere: removed.
        changes = tracker.apply(
            addresses: [], update: SyncUpdate(tip: tip, spentElsewhere: [OutPoint(txid: b.txid, vout: 0)]))
        #expect(changes.removed == [OutPoint(txid: b.txid, vout: 0)] && changes.written.isEmpty)
        #expect(tracker.unspentCount == 1)
    }

    @Test("a sync starting from a stored transaction whose row does not hash to its txid reports it corrupt")
    func corruptStoredTransaction() async throws {
        let (store, wallet, account) = try WalletSyncTests.setUp()
        let walletID = try wallet.requireID()
        let tx = try TestTransactions.funding(try account.derive(.external, index: 0).script, sats: 5_000, seed: 51)
        let source = FixedChainSource(tipHeight: 100, transactions: [tx], heights: [tx.txid: 100])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        // The control: a second sync over the stored transaction passes and changes nothing.
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        #expect(try store.utxos(walletID: walletID).map(\.outpoint) == [OutPoint(txid: tx.txid, vout: 0)])
        var other = tx
        other.lockTime = LockTime(rawValue: 1)
        let raw = Data(other.serialized())
        try await store.pool.write { db in try db.execute(sql: "UPDATE tx SET raw = ?", arguments: [raw]) }
        await #expect(throws: SyncError.store(.corrupt("transaction \(tx.txid)"))) {
            try await WalletSync(store: store, wallet: wallet, source: source).run()
        }
    }
}
