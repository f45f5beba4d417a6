import Bitcoin
import ChainCore
import Foundation
import GRDB
import TestSupport
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

    @Test(
        "random histories, children before parents, double spends: the rows kept batch by batch equal the rule's",
        arguments: 1...24 as ClosedRange<UInt64>)
    func randomHistoriesMatchTheRule(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let (_, _, account) = try WalletSyncTests.setUp()
        var addresses: [AddressRecord] = []
        for index in 0..<8 { addresses.append(try account.derive(.external, index: index)) }
        for index in 0..<4 { addresses.append(try account.derive(.internal, index: index)) }
        let foreign = (0..<4).map { TestTransactions.foreignScript(0xA0 + UInt8($0)) }
        let scripts = addresses.map(\.script) + foreign
        // Transactions in the order they were made: a funding from outside, or a spend of up to three earlier
        // outputs (one may be spent twice, one may name an index its transaction does not have).
        var made: [Transaction] = []
        for number in 0..<60 {
            var inputs: [OutPoint] = []
            if made.isEmpty || random.next() % 4 == 0 {
                inputs = [
                    OutPoint(
                        txid: try Txid(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }), vout: 0)
                ]
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let parent = made[Int.random(in: 0..<made.count, using: &random)]
                    inputs.append(
                        OutPoint(
                            txid: parent.txid, vout: UInt32.random(in: 0...UInt32(parent.outputs.count), using: &random)
                        ))
                }
            }
            var outputs: [(Script, UInt64)] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                outputs.append(
                    (
                        scripts[Int.random(in: 0..<scripts.count, using: &random)],
                        UInt64.random(in: 1_000...90_000, using: &random)
                    ))
            }
            var transaction = try TestTransactions.spend(inputs, outputs: outputs)
            transaction.lockTime = LockTime(rawValue: UInt32(number))
            made.append(transaction)
        }
        // Handed in a shuffled order: some stored before the sync, the rest in eight batches.
        let order = made.shuffled(using: &random)
        let storedCount = Int.random(in: 0...10, using: &random)
        var owned = Array(addresses.prefix(3))
        var spentElsewhere: Set<OutPoint> = []
        var given: [Transaction] = Array(order.prefix(storedCount))
        var heights: [Txid: Int] = [:]
        for transaction in given where random.next() % 2 == 0 {
            heights[transaction.txid] = Int.random(in: 100...110, using: &random)
        }
        var tracker = UTXOTracker(
            addresses: owned,
            transactions: given.map { transaction in
                TransactionRecord(
                    txid: transaction.txid, transaction: transaction,
                    anchor: heights[transaction.txid].map {
                        BlockAnchor(height: $0, blockHash: "\($0)", verified: true)
                    },
                    firstSeen: 0)
            }, spentElsewhere: [])
        var seen: Set<Txid> = []

        // The rule (`Store.recomputeUTXOs`'s): the outputs to an owned script that no given transaction spends and no
        // backend reported spent.
        func expected() -> [OutPoint: UTXORow] {
            let spent = Set(given.flatMap { $0.inputs.map(\.previousOutput) }).union(spentElsewhere)
            var rows: [OutPoint: UTXORow] = [:]
            for transaction in given {
                for (vout, output) in transaction.outputs.enumerated() {
                    let outpoint = OutPoint(txid: transaction.txid, vout: UInt32(vout))
                    guard let owner = owned.first(where: { $0.script == output.scriptPubKey }),
                        !spent.contains(outpoint)
                    else { continue }
                    rows[outpoint] = UTXORow(
                        value: Int64(output.value.sats), script: output.scriptPubKey, keychain: owner.keychain.rawValue,
                        index: owner.index, height: heights[transaction.txid], coinbase: false)
                }
            }
            return rows
        }
        func check(_ table: [OutPoint: UTXORow], _ step: String) {
            let rows = expected()
            #expect(table == rows, "seed \(seed) \(step): rows")
            #expect(tracker.unspentCount == rows.count, "seed \(seed) \(step): count")
            for script in scripts {
                let unspent = Set(tracker.unspentOutputs(paying: script))
                let spent = Set(given.flatMap { $0.inputs.map(\.previousOutput) })
                let paying = given.flatMap { transaction in
                    transaction.outputs.indices.filter { transaction.outputs[$0].scriptPubKey == script }.map {
                        OutPoint(txid: transaction.txid, vout: UInt32($0))
                    }
                }
                #expect(unspent == Set(paying.filter { !spent.contains($0) }), "seed \(seed) \(step): unspent paying")
                // The related transactions: those paying the script and a spender of each output they pay.
                let related = Set(tracker.relatedTransactions(script))
                let spenders = paying.map { outpoint in
                    Set(given.filter { $0.inputs.contains { $0.previousOutput == outpoint } }.map(\.txid))
                }
                #expect(related.isSuperset(of: paying.map(\.txid)), "seed \(seed) \(step): related payers")
                #expect(
                    related.isSubset(of: Set(paying.map(\.txid)).union(spenders.joined())),
                    "seed \(seed) \(step): related")
                for spender in spenders where !spender.isEmpty {
                    #expect(!related.isDisjoint(with: spender), "seed \(seed) \(step): a spender")
                }
            }
            for transaction in made {
                #expect(tracker.seen(transaction.txid) == seen.contains(transaction.txid), "seed \(seed) \(step): seen")
            }
        }
        var table = expected()
        check(table, "loaded")
        var rest = order.dropFirst(storedCount)
        for batch in 0..<8 {
            let take = batch == 7 ? rest.count : Int.random(in: 0...min(rest.count, 12), using: &random)
            let arriving = Array(rest.prefix(take))
            rest = rest.dropFirst(take)
            let derived = Array(addresses[min(3 + batch, addresses.count)..<min(3 + batch + 2, addresses.count)])
            var update = SyncUpdate(tip: BlockTip(height: 120, hash: "00"))
            for transaction in arriving { update.transactions[transaction.txid] = transaction }
            given += arriving
            owned += derived
            // Confirmations moved (the histories' unconfirmed entries first, then the anchors, as the tracker
            // applies them), and an output of a given transaction now and then reported spent elsewhere.
            for transaction in given where random.next() % 3 == 0 {
                if random.next() % 2 == 0 {
                    update.histories[foreign[0], default: []].append(HistoryEntry(txid: transaction.txid, height: nil))
                    heights[transaction.txid] = nil
                } else {
                    let height = Int.random(in: 100...115, using: &random)
                    update.anchors[transaction.txid] = BlockAnchor(
                        height: height, blockHash: "\(height)", verified: true)
                }
            }
            for (txid, anchor) in update.anchors { heights[txid] = anchor.height }
            if let transaction = given.randomElement(using: &random), random.next() % 3 == 0 {
                let outpoint = OutPoint(txid: transaction.txid, vout: 0)
                update.spentElsewhere.insert(outpoint)
                spentElsewhere.insert(outpoint)
            }
            for transaction in arriving where random.next() % 2 == 0 {
                tracker.markSeen(transaction.txid)
                seen.insert(transaction.txid)
            }
            let changes = tracker.apply(addresses: derived, update: update)
            for outpoint in changes.removed {
                #expect(
                    table.removeValue(forKey: outpoint) != nil, "seed \(seed) batch \(batch): removed a row it had not")
            }
            for (outpoint, row) in changes.written {
                #expect(table[outpoint] != row, "seed \(seed) batch \(batch): wrote a row unchanged")
                table[outpoint] = row
            }
            check(table, "batch \(batch)")
        }
    }
}
