import Bitcoin
import Foundation
import GRDB
import Testing

@testable import Watcher
@testable import WatcherFlows

@Suite("history pages")
struct HistoryPageTests {
    /// A synced wallet with receives, sends with change, a self-transfer, a coin spent twice over, unconfirmed
    /// transactions and labels; several transactions share a height (the txid orders them).
    static func wallet() async throws -> (Store, WalletRecord) {
        let store = try FlowTests.store()
        _ = try FlowTests.importDescriptor(store)
        let wallet = try store.wallet(named: nil)
        let account = try Account(record: wallet)
        let ours = try (0..<6).map { try account.derive(.external, index: $0).script }
        let change = try account.derive(.internal, index: 0).script
        var transactions: [Transaction] = []
        var heights: [Txid: Int] = [:]
        func add(_ tx: Transaction, _ height: Int?) {
            transactions.append(tx)
            if let height { heights[tx.txid] = height }
        }
        let fundings = try (0..<6).map {
            try TestTransactions.funding(ours[$0], sats: 100_000 + UInt64($0) * 1000, seed: UInt8($0 + 1))
        }
        for (index, tx) in fundings.enumerated() { add(tx, index < 4 ? 5 + index / 2 : nil) }
        // A send with change, confirmed at the height of two receives.
        let send = try TestTransactions.spend(
            [OutPoint(txid: fundings[0].txid, vout: 0)],
            outputs: [(TestTransactions.foreignScript(9), 60_000), (change, 39_000)])
        add(send, 6)
        // A self-transfer (to its own address) spending the change.
        let selfTransfer = try TestTransactions.spend(
            [OutPoint(txid: send.txid, vout: 1)], outputs: [(ours[5], 38_500)])
        add(selfTransfer, 8)
        // A send of two coins with a foreign input too (its fee unknown).
        let mixed = try TestTransactions.spend(
            [
                OutPoint(txid: fundings[1].txid, vout: 0),
                OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0x77, count: 32)), vout: 3),
            ],
            outputs: [(TestTransactions.foreignScript(8), 150_000)])
        add(mixed, 8)
        // Unconfirmed: a send of a confirmed coin and one of an unconfirmed coin.
        add(
            try TestTransactions.spend(
                [OutPoint(txid: fundings[2].txid, vout: 0)], outputs: [(TestTransactions.foreignScript(7), 101_000)]),
            nil)
        add(try TestTransactions.spend([OutPoint(txid: fundings[4].txid, vout: 0)], outputs: [(change, 103_500)]), nil)
        let source = FixedChainSource(tipHeight: 12, transactions: transactions, heights: heights)
        _ = try await SyncFlow.run(store: store, wallet: wallet, source: source)
        try store.upsertLabels(
            [
                Label(type: "tx", ref: send.txid.hexString, label: "rent"),
                Label(type: "tx", ref: selfTransfer.txid.hexString, label: "to cold\u{202E}"),
                Label(type: "tx", ref: fundings[5].txid.hexString, label: ""),
                Label(type: "addr", ref: "bcrt1qnotatx", label: "not a tx label"),
            ], walletID: try wallet.requireID())
        return (store, wallet)
    }

    @Test("each page equals its slice of the full report, for several page sizes and starts")
    func pagesEqualSlices() async throws {
        let (store, wallet) = try await Self.wallet()
        let full = try WalletHistory.report(store: store, wallet: wallet).entries
        #expect(full.count == 11)
        // The wallet really has every kind of entry the page must reproduce.
        #expect(full.contains { $0.net < 0 && $0.fee != nil } && full.contains { $0.fee == nil && $0.sent.sats > 0 })
        #expect(full.contains { $0.received.sats > 0 && $0.sent.sats > 0 && $0.net < 0 && $0.net > -1000 })
        #expect(full.contains { $0.height == nil } && full.contains { $0.label == "rent" })
        #expect(full.prefix(4).allSatisfy { $0.height == nil } && full[4].height != nil)
        for limit in [1, 2, 3, 4, 5, 10, 11, 12, 1000] {
            for offset in stride(from: 0, through: full.count + 1, by: limit) {
                let page = try WalletHistory.page(store: store, wallet: wallet, limit: limit, offset: offset)
                #expect(page.entries == Array(full.dropFirst(offset).prefix(limit)), "limit \(limit) offset \(offset)")
                #expect(page.total == full.count && page.limit == limit && page.offset == offset)
            }
        }
        // Offsets that are not multiples of the page size.
        for offset in [1, 4, 7, 10] {
            let page = try WalletHistory.page(store: store, wallet: wallet, limit: 3, offset: offset)
            #expect(page.entries == Array(full.dropFirst(offset).prefix(3)))
        }
        // Past the end: no entries, the total still counted.
        let past = try WalletHistory.page(store: store, wallet: wallet, limit: 5, offset: 50)
        #expect(past.entries.isEmpty && past.total == 11)
        #expect(past.lines == ["no transactions from 51 on: the wallet has 11"])
        // The text ends with which of how many; the JSON is the entries alone, as without a page.
        let second = try WalletHistory.page(store: store, wallet: wallet, limit: 4, offset: 4)
        #expect(second.lines.count == 5 && second.lines.last == "transactions 5-8 of 11")
        #expect(second.lines.dropLast() == ArraySlice(full[4..<8].map(\.line)))
        #expect(second.report == WalletHistory.Report(entries: Array(full[4..<8])))
    }

    @Test("a page size or start out of range is refused with a clear message; the bounds themselves are served")
    func badPages() async throws {
        let (store, wallet) = try await Self.wallet()
        for limit in [0, -1, 1001, Int.max] {
            #expect(throws: WalletHistory.BadPage.self) {
                try WalletHistory.page(store: store, wallet: wallet, limit: limit, offset: 0)
            }
        }
        do {
            _ = try WalletHistory.page(store: store, wallet: wallet, limit: -5, offset: 0)
            Issue.record("a negative page size was served")
        } catch let failure as WalletHistory.BadPage {
            #expect(failure.description == "the page size must be between 1 and 1000, not -5")
            #expect(failure.failureKind == .invalidInput)
        }
        for offset in [-1, Int.max] {
            #expect(throws: WalletHistory.BadPage.self) {
                try WalletHistory.page(store: store, wallet: wallet, limit: 10, offset: offset)
            }
        }
        // Controls: the largest page size and the first page work.
        #expect(try WalletHistory.page(store: store, wallet: wallet, limit: 1000, offset: 0).entries.count == 11)
        #expect(try WalletHistory.page(store: store, wallet: wallet, limit: 1, offset: 0).entries.count == 1)
    }

    @Test("dates are UTC minutes, the same as a DateFormatter gives, across years and at the edges")
    func dates() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        #expect(WalletHistory.date(0) == "1970-01-01 00:00 UTC")
        #expect(WalletHistory.date(1_795_010_520) == "2026-11-18 14:02 UTC")
        for seconds in [0, 59, 60, 86_399, 951_782_400, 1_230_768_000, 1_795_010_520, 4_102_444_799, -86_400] {
            #expect(
                WalletHistory.date(seconds)
                    == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
        }
    }

    @Test("the page query reads the tx_history_order index, not a sort of every transaction")
    func pageUsesIndex() throws {
        let store = try FlowTests.store()
        let plan = try store.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "EXPLAIN QUERY PLAN SELECT txid FROM tx WHERE wallet_id = 1 ORDER BY \(Store.historyOrder) LIMIT 50"
            ).map { row -> String in row["detail"] }
        }
        #expect(plan.joined().contains("tx_history_order"))
        #expect(!plan.joined().contains("TEMP B-TREE"))
        #expect(try store.appliedMigrations().contains("v6-tx-history-order"))
    }
}
