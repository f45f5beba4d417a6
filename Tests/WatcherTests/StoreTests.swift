import Bitcoin
import ChainCore
import Foundation
import GRDB
import Testing

@testable import Watcher
@testable import WatcherFlows

/// The SQLite store: named migrations, WAL, foreign keys, and UTXOs derived from stored transactions.
@Suite("Store: migrations, wallets, UTXOs")
struct StoreTests {
    static func tempDir() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-store-\(UUID().uuidString)")
            .path
        return path
    }

    // BIP84 test vector account key (mnemonic "abandon … about"), with both branches.
    static let descriptor =
        "wpkh([73c5da0a/84h/0h/0h]xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V/<0;1>/*)"

    static func makeWallet(_ store: Store, name: String = "w") throws -> WalletRecord {
        let account = try AccountImport.parse(Self.descriptor)
        return try store.createWallet(
            WalletRecord(
                name: name, network: .main, gapLimit: 20,
                descriptors: [.external: account.external.description, .internal: account.change?.description ?? ""]))
    }

    @Test("a new database has every named migration, WAL journal and foreign keys on")
    func migrations() throws {
        let store = try Store(directory: Self.tempDir())
        #expect(try store.appliedMigrations() == Store.migrationNames)
        let mode = try store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let fk = try store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(fk == 1)
    }

    @Test("the WAL file is cut back to its limit when SQLite starts it over after a large commit")
    func walSizeLimit() throws {
        let store = try Store(directory: Self.tempDir())
        let walPath = store.path + "-wal"
        func walSize() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? -1
        }
        // One commit of 16 MB: the WAL grows past the limit.
        try store.pool.write { db in
            let value = String(repeating: "x", count: 1 << 20)
            for i in 0..<16 {
                try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?)", arguments: ["big\(i)", value])
            }
        }
        #expect(try walSize() > 2 * Store.walSizeLimit)
        // Once all of it is in the database file, the next write starts the WAL over and cuts it back.
        try store.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
        try store.setSetting("after", "1")
        let after = try walSize()
        #expect(after >= 0 && after <= Store.walSizeLimit)
        #expect(try store.setting("after") == "1")
    }

    @Test("reopening keeps the data and applies nothing twice")
    func reopen() throws {
        let dir = Self.tempDir()
        do {
            let store = try Store(directory: dir)
            _ = try Self.makeWallet(store)
            try store.setSetting("node.url", "electrum://127.0.0.1:1")
        }
        let again = try Store(directory: dir)
        #expect(try again.wallets().map(\.name) == ["w"])
        #expect(try again.setting("node.url") == "electrum://127.0.0.1:1")
    }

    @Test("a database from a newer version is refused, not altered")
    func newerSchema() throws {
        let dir = Self.tempDir()
        let store = try Store(directory: dir)
        try store.pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
        }
        #expect(throws: StoreError.newerSchema("v99-future")) { try Store(directory: dir) }
    }

    @Test("wallet names: unique, found by name, the only one by default")
    func walletNames() throws {
        let store = try Store(directory: Self.tempDir())
        #expect(throws: StoreError.noWallet) { try store.wallet(named: nil) }
        _ = try Self.makeWallet(store, name: "a")
        #expect(try store.wallet(named: nil).name == "a")
        #expect(throws: StoreError.walletExists("a")) { try Self.makeWallet(store, name: "a") }
        _ = try Self.makeWallet(store, name: "b")
        #expect(throws: StoreError.ambiguousWallet(["a", "b"])) { try store.wallet(named: nil) }
        #expect(throws: StoreError.walletNotFound(name: "c", known: ["a", "b"])) { try store.wallet(named: "c") }
    }

    @Test("the balance summed by SQLite equals the balance of every coin read (coinbase maturity, unconfirmed, frozen)")
    func summedBalance() throws {
        let store = try Store(directory: Self.tempDir())
        let wallet = try Self.makeWallet(store)
        let id = try wallet.requireID()
        let account = try Account(record: wallet)
        let receive = try account.derive(.external, index: 0)
        let coinbase = Transaction(
            inputs: [
                TxIn(
                    previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0, count: 32)), vout: 0xFFFF_FFFF)
                )
            ],
            outputs: [TxOut(value: try Amount(sats: 5_000_000_000), scriptPubKey: receive.script)])
        let paid = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 3, count: 32)), vout: 0))],
            outputs: [
                TxOut(value: try Amount(sats: 70_000), scriptPubKey: receive.script),
                TxOut(value: try Amount(sats: 1_234), scriptPubKey: receive.script),
            ])
        let pending = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 4, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 9_000), scriptPubKey: receive.script)])
        try store.apply(
            walletID: id, addresses: [receive],
            update: SyncUpdate(
                tip: BlockTip(height: 10, hash: String(repeating: "0", count: 64)),
                histories: [
                    receive.script: [
                        HistoryEntry(txid: coinbase.txid, height: 5), HistoryEntry(txid: paid.txid, height: 6),
                        HistoryEntry(txid: pending.txid, height: nil),
                    ]
                ],
                transactions: [coinbase.txid: coinbase, paid.txid: paid, pending.txid: pending],
                anchors: [
                    coinbase.txid: BlockAnchor(height: 5, blockHash: "ab", verified: true),
                    paid.txid: BlockAnchor(height: 6, blockHash: "cd", verified: true),
                ]))
        try store.setFrozen([OutPoint(txid: paid.txid, vout: 1)], frozen: true, walletID: id)
        // Labels that only resemble a coin's `txid:vout` freeze nothing: another spelling of the index, the txid in
        // capitals, a coin the wallet does not have, a truncated txid; and a frozen address or transaction label.
        let hex = paid.txid.hexString
        try store.upsertLabels(
            [
                Label(type: "output", ref: "\(hex):00", label: nil, spendable: false),
                Label(type: "output", ref: "\(hex.uppercased()):0", label: nil, spendable: false),
                Label(type: "output", ref: "\(hex):7", label: nil, spendable: false),
                Label(type: "output", ref: "\(hex.dropLast()):0", label: nil, spendable: false),
                Label(type: "tx", ref: hex, label: nil, spendable: false),
                Label(type: "addr", ref: receive.address, label: nil, spendable: false),
                Label(type: "output", ref: "\(pending.txid.hexString):0", label: "spendable", spendable: true),
            ], walletID: id)
        for tip in [nil, 10, 103, 104, 500] {
            let summed = try store.balance(walletID: id, tipHeight: tip)
            #expect(summed == Balance(utxos: try store.utxos(walletID: id), tipHeight: tip))
            #expect(summed.frozen == 1_234 && summed.unconfirmed == 9_000)
        }
        // The coinbase output matures at its 100th confirmation (height 104), not before.
        #expect(try store.balance(walletID: id, tipHeight: 103).immature == 5_000_000_000)
        #expect(try store.balance(walletID: id, tipHeight: 104).immature == 0)
        #expect(try store.balance(walletID: id, tipHeight: 104).confirmed == 5_000_071_234)
    }

    @Test("applying a sync batch derives UTXOs; a spend removes them; deleting the wallet cascades")
    func utxos() throws {
        let store = try Store(directory: Self.tempDir())
        let wallet = try Self.makeWallet(store)
        let id = try wallet.requireID()
        let account = try Account(record: wallet)
        let receive = try account.derive(.external, index: 0)
        #expect(receive.address == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")  // BIP84 vector, m/84'/0'/0'/0/0
        let change = try account.derive(.internal, index: 0)
        let funding = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 7, count: 32)), vout: 1))],
            outputs: [TxOut(value: try Amount(sats: 50_000), scriptPubKey: receive.script)])
        let tip = BlockTip(height: 10, hash: String(repeating: "0", count: 64))
        try store.apply(
            walletID: id, addresses: [receive, change],
            update: SyncUpdate(
                tip: tip, histories: [receive.script: [HistoryEntry(txid: funding.txid, height: 5)]],
                transactions: [funding.txid: funding],
                anchors: [funding.txid: BlockAnchor(height: 5, blockHash: "ab", verified: true)]))
        #expect(try store.utxos(walletID: id).map(\.value.sats) == [50_000])
        #expect(try store.addresses(walletID: id).first { $0.keychain == .external }?.used == true)
        let spend = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: funding.txid, vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 40_000), scriptPubKey: change.script)])
        try store.apply(
            walletID: id, addresses: [],
            update: SyncUpdate(
                tip: tip, histories: [change.script: [HistoryEntry(txid: spend.txid, height: nil)]],
                transactions: [spend.txid: spend]))
        let after = try store.utxos(walletID: id)
        #expect(after.map(\.value.sats) == [40_000])
        #expect(after.first?.height == nil)
        let balance = Balance(utxos: after, tipHeight: 10)
        #expect(balance.unconfirmed == 40_000 && balance.confirmed == 0)
        // The unconfirmed spend vanishes from the mempool: finishing a sync that did not see it drops it.
        try store.finishSync(walletID: id, tip: tip, seen: [funding.txid])
        #expect(try store.utxos(walletID: id).map(\.value.sats) == [50_000])
        try store.deleteWallet(id: id)
        let rows = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tx") }
        #expect(rows == 0)
    }

    @Test("coins come in spend order (unconfirmed last, then height, txid, vout) straight from the covering index")
    func coinsInSpendOrder() throws {
        let store = try Store(directory: Self.tempDir())
        let wallet = try Self.makeWallet(store)
        let id = try wallet.requireID()
        let account = try Account(record: wallet)
        let receive = try account.derive(.external, index: 0)
        // Twelve transactions of three outputs each, at heights 7, 3, 3, nil, … so that height, txid and vout all
        // decide somewhere.
        let heights: [Int?] = [7, 3, 3, nil, 5, 3, nil, 7, 5, 3, 9, nil]
        var transactions: [Txid: Transaction] = [:]
        var history: [HistoryEntry] = []
        var anchors: [Txid: BlockAnchor] = [:]
        for (n, height) in heights.enumerated() {
            let tx = Transaction(
                inputs: [
                    TxIn(
                        previousOutput: OutPoint(
                            txid: try Txid(bytes: [UInt8](repeating: UInt8(n), count: 32)), vout: 0))
                ],
                outputs: try (0..<3).map { k in
                    TxOut(value: try Amount(sats: UInt64(10_000 + 100 * n + k)), scriptPubKey: receive.script)
                })
            transactions[tx.txid] = tx
            history.append(HistoryEntry(txid: tx.txid, height: height))
            if let height { anchors[tx.txid] = BlockAnchor(height: height, blockHash: "ab", verified: true) }
        }
        try store.apply(
            walletID: id, addresses: [receive],
            update: SyncUpdate(
                tip: BlockTip(height: 10, hash: String(repeating: "0", count: 64)),
                histories: [receive.script: history],
                transactions: transactions, anchors: anchors))
        let frozen = OutPoint(txid: history[4].txid, vout: 2)
        try store.setFrozen([frozen], frozen: true, walletID: id)

        // The expected order, computed here from the full rows.
        let expected = try store.utxos(walletID: id).sorted { a, b in
            let keyA = (a.height == nil ? 1 : 0, a.height ?? 0, a.outpoint.txid.hexString, a.outpoint.vout)
            let keyB = (b.height == nil ? 1 : 0, b.height ?? 0, b.outpoint.txid.hexString, b.outpoint.vout)
            return keyA < keyB
        }
        let coins = try store.coins(walletID: id)
        #expect(coins.count == 36)
        #expect(coins.map(\.outpoint) == expected.map(\.outpoint))
        #expect(coins.map(\.value) == expected.map(\.value))
        #expect(coins.map(\.height) == expected.map(\.height))
        #expect(coins.filter(\.frozen).map(\.outpoint) == [frozen])

        let plan = try store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Store.coinsSQL, arguments: [id]).map {
                $0["detail"] as String
            }
        }
        #expect(plan == ["SEARCH utxo USING COVERING INDEX utxo_spend_order (wallet_id=?)"])
    }

    @Test("a UTXO row whose txid is not 64 hex digits is reported as corrupt, naming it")
    func corruptCoin() throws {
        let store = try Store(directory: Self.tempDir())
        let wallet = try Self.makeWallet(store)
        let id = try wallet.requireID()
        let receive = try Account(record: wallet).derive(.external, index: 0)
        let tx = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 5, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 30_000), scriptPubKey: receive.script)])
        try store.apply(
            walletID: id, addresses: [receive],
            update: SyncUpdate(
                tip: BlockTip(height: 3, hash: String(repeating: "0", count: 64)),
                histories: [receive.script: [HistoryEntry(txid: tx.txid, height: 2)]],
                transactions: [tx.txid: tx], anchors: [tx.txid: BlockAnchor(height: 2, blockHash: "ab", verified: true)]
            ))
        #expect(try store.coins(walletID: id).count == 1)
        for bad in [String(tx.txid.hexString.dropLast()) + "g", String(tx.txid.hexString.dropLast(2))] {
            try store.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                try db.execute(sql: "UPDATE utxo SET txid = ?", arguments: [bad])
            }
            #expect(throws: StoreError.corrupt("utxo \(bad):0")) { try store.coins(walletID: id) }
        }
    }

    @Test("a database without the spend-order index gets it on open, its coins unchanged")
    func spendOrderMigration() throws {
        let directory = Self.tempDir()
        let before: [CoinRecord]
        do {
            let store = try Store(directory: directory)
            let wallet = try Self.makeWallet(store)
            let receive = try Account(record: wallet).derive(.external, index: 0)
            let tx = Transaction(
                inputs: [
                    TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))
                ],
                outputs: [TxOut(value: try Amount(sats: 25_000), scriptPubKey: receive.script)])
            try store.apply(
                walletID: try wallet.requireID(), addresses: [receive],
                update: SyncUpdate(
                    tip: BlockTip(height: 3, hash: String(repeating: "0", count: 64)),
                    histories: [receive.script: [HistoryEntry(txid: tx.txid, height: nil)]],
                    transactions: [tx.txid: tx]))
            before = try store.coins(walletID: try wallet.requireID())
            // As a database written before migration v5 is (and so before v6).
            try store.pool.write { db in
                try db.execute(sql: "DROP INDEX utxo_spend_order")
                try db.execute(sql: "DROP INDEX tx_history_order")
                try db.execute(
                    sql:
                        "DELETE FROM grdb_migrations WHERE identifier IN ('v5-utxo-spend-order', 'v6-tx-history-order')"
                )
            }
        }
        let store = try Store(directory: directory)
        #expect(try store.appliedMigrations() == Store.migrationNames)
        let index = try store.pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'utxo_spend_order'")
        }
        #expect(index == "utxo_spend_order")
        let historyIndex = try store.pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'tx_history_order'")
        }
        #expect(historyIndex == "tx_history_order")
        #expect(try WalletHistory.page(store: store, wallet: try store.wallets()[0], limit: 10).entries.count == 1)
        #expect(before.count == 1)
        #expect(try store.coins(walletID: try store.wallets()[0].requireID()) == before)
    }
}
