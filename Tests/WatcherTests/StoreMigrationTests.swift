import Bitcoin
import ChainCore
import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import Watcher
@testable import WatcherFlows

/// Migration v7 (`utxo` keyed by its transaction's row) on databases as earlier binaries wrote them: every answer the
/// same as on a database that was never migrated, later syncs and deletions too; a failed migration changes nothing.
@Suite("Store: migration v7 of databases made by earlier binaries")
struct StoreMigrationTests {
    static let tipHeight = 12

    /// Both wallets' chain before the re-sync: a coinbase output (immature at the tip), receives, a send with change,
    /// a transaction paying both wallets' first address twice over, unconfirmed ones; `later` is the chain at the
    /// re-sync: one unconfirmed transaction confirmed, another evicted, a new spend, and a reorg of height 7.
    struct Chain {
        var before: FixedChainSource
        var later: FixedChainSource
        /// The output the tests freeze, and the one a backend reported spent elsewhere.
        var frozen: OutPoint
        var spentElsewhere: OutPoint
        var sendTxid: Txid
    }

    static func chain(_ wallet: WalletRecord, seed: UInt8) throws -> Chain {
        let account = try Account(record: wallet)
        let ours = try (0..<5).map { try account.derive(.external, index: $0).script }
        let change = try account.derive(.internal, index: 0).script
        var transactions: [Transaction] = []
        var heights: [Txid: Int] = [:]
        func add(_ tx: Transaction, _ height: Int?) {
            transactions.append(tx)
            if let height { heights[tx.txid] = height }
        }
        let coinbase = Transaction(
            inputs: [
                TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0, count: 32)), vout: .max))
            ],
            outputs: [TxOut(value: try Amount(sats: 5_000_000_000), scriptPubKey: ours[0])])
        add(coinbase, 3)
        let fundings = try (0..<4).map {
            try TestTransactions.funding(ours[$0 + 1], sats: 100_000 + UInt64($0) * 1000, seed: seed + UInt8($0))
        }
        add(fundings[0], 5)
        add(fundings[1], 5)
        add(fundings[2], 6)
        add(fundings[3], nil)
        // Two outputs to the wallet in one transaction (vout 0 and 2), a foreign one between them.
        let twice = Transaction(
            inputs: [
                TxIn(
                    previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: seed &+ 40, count: 32)), vout: 1))
            ],
            outputs: [
                TxOut(value: try Amount(sats: 7_000), scriptPubKey: ours[0]),
                TxOut(value: try Amount(sats: 8_000), scriptPubKey: TestTransactions.foreignScript(seed)),
                TxOut(value: try Amount(sats: 9_000), scriptPubKey: ours[0]),
            ])
        add(twice, 7)
        let send = try TestTransactions.spend(
            [OutPoint(txid: fundings[0].txid, vout: 0)],
            outputs: [(TestTransactions.foreignScript(9), 60_000), (change, 39_000)])
        add(send, 8)
        let pending = try TestTransactions.spend(
            [OutPoint(txid: fundings[1].txid, vout: 0)], outputs: [(change, 100_500)])
        add(pending, nil)
        let evicted = try TestTransactions.spend(
            [OutPoint(txid: send.txid, vout: 1)], outputs: [(TestTransactions.foreignScript(7), 38_000)])
        add(evicted, nil)
        let before = FixedChainSource(tipHeight: tipHeight, transactions: transactions, heights: heights)

        var later = before
        later.tipHeight = tipHeight + 2
        later.transactions.removeAll { $0.txid == evicted.txid }
        later.heights[pending.txid] = 13
        later.heights[fundings[3].txid] = 13
        later.blockHashes[7] = FixedChainSource.hash(7, fork: 1)
        let newSpend = try TestTransactions.spend(
            [OutPoint(txid: twice.txid, vout: 2)], outputs: [(change, 8_500)])
        later.transactions.append(newSpend)
        later.heights[newSpend.txid] = 14
        return Chain(
            before: before, later: later, frozen: OutPoint(txid: fundings[2].txid, vout: 0),
            spentElsewhere: OutPoint(txid: twice.txid, vout: 0), sendTxid: send.txid)
    }

    /// Everything the queries answer for a wallet.
    struct Answers: Equatable {
        var balance: Balance
        var history: [WalletHistory.Entry]
        var pages: [[WalletHistory.Entry]]
        var utxos: [UTXORecord]
        var coins: [CoinRecord]
        var byOutpoint: [OutPoint: UTXORecord]
        var labels: [Label]
        var spentElsewhere: Set<OutPoint>
        var transactions: [String]
        var previous: [Txid: Transaction]

        static func == (a: Answers, b: Answers) -> Bool {
            a.balance == b.balance && a.history == b.history && a.pages == b.pages && a.utxos == b.utxos
                && a.coins == b.coins && a.byOutpoint == b.byOutpoint && a.labels == b.labels
                && a.spentElsewhere == b.spentElsewhere && a.transactions == b.transactions
                && a.previous.mapValues { $0.serialized() } == b.previous.mapValues { $0.serialized() }
        }
    }

    static func answers(_ store: Store, _ name: String, tip: Int = tipHeight) throws -> Answers {
        let wallet = try store.wallet(named: name)
        let id = try wallet.requireID()
        let utxos = try store.utxos(walletID: id)
        let missing = OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0x55, count: 32)), vout: 0)
        var history = try WalletHistory.report(store: store, wallet: wallet).entries
        var pages = try [0, 3, 6, 9].map {
            try WalletHistory.page(store: store, wallet: wallet, limit: 3, offset: $0).entries
        }
        // When the re-sync first saw a transaction differs between two stores by the clock: compared apart.
        for index in history.indices where history[index].firstSeen > 1_000_000 { history[index].firstSeen = 1 }
        for page in pages.indices {
            for index in pages[page].indices where pages[page][index].firstSeen > 1_000_000 {
                pages[page][index].firstSeen = 1
            }
        }
        return Answers(
            balance: try store.balance(walletID: id, tipHeight: tip), history: history, pages: pages, utxos: utxos,
            coins: try store.coins(walletID: id),
            byOutpoint: try store.utxos(walletID: id, outpoints: utxos.map(\.outpoint) + [missing]),
            labels: try store.labels(walletID: id).sorted { ($0.type, $0.ref) < ($1.type, $1.ref) },
            spentElsewhere: try store.spentElsewhere(walletID: id),
            transactions: try store.transactions(walletID: id).map {
                "\($0.txid) \($0.anchor.map { "\($0.height) \($0.blockHash) \($0.verified)" } ?? "unconfirmed")"
            }.sorted(),
            previous: try store.transactions(walletID: id, txids: Set(utxos.map(\.outpoint.txid))))
    }

    /// A store synced from `chain.before` for two wallets ("a" and "b", the same descriptor: the same txids in both),
    /// with labels (one output frozen), an output reported spent elsewhere and the first-seen times fixed.
    static func control() async throws -> (Store, [String: Chain]) {
        let store = try FlowTests.store()
        var chains: [String: Chain] = [:]
        for (name, seed) in [("a", UInt8(1)), ("b", UInt8(20))] {
            let wallet = try StoreTests.makeWallet(store, name: name)
            let chain = try Self.chain(wallet, seed: seed)
            chains[name] = chain
            _ = try await SyncFlow.run(store: store, wallet: wallet, source: chain.before)
            let id = try wallet.requireID()
            try store.upsertLabels(
                [
                    Label(type: "tx", ref: chain.sendTxid.hexString, label: "rent " + name),
                    Label(type: "output", ref: chain.frozen.description, label: "kept", spendable: false),
                    Label(type: "addr", ref: "bc1qnotours", label: "not a tx label"),
                ], walletID: id)
            try store.apply(
                walletID: id, addresses: [],
                update: SyncUpdate(
                    tip: BlockTip(height: tipHeight, hash: FixedChainSource.hash(tipHeight)),
                    spentElsewhere: [chain.spentElsewhere]))
        }
        try await store.pool.write { db in
            try db.execute(sql: "UPDATE tx SET first_seen = 1000 + length(txid) + id % 7")
        }
        return (store, chains)
    }

    static let oldColumns: [String: String] = [
        "tx": "wallet_id, txid, raw, height, block_hash, verified, first_seen",
        "utxo": "wallet_id, txid, vout, value, script, keychain, idx, height, coinbase",
    ]

    /// A database at migration v6, its rows those of `control` as the binaries before v7 wrote them (its `tx` rows in
    /// another order than the control's ids), with an Ethereum account and transaction beside them.
    static func oldDatabase(copying control: Store) throws -> String {
        let directory = StoreTests.tempDir()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let old = try DatabasePool(
            path: (directory as NSString).appendingPathComponent("wallet.sqlite"), configuration: configuration)
        try Store.migrator.migrate(old, upTo: "v6-tx-history-order")
        let tables = [
            "wallet", "descriptor", "address", "keychain_state", "tx", "utxo", "spent_elsewhere", "sync_state", "label",
            "setting",
        ]
        let rows = try control.pool.read { db in
            try tables.map { table in
                let columns = oldColumns[table] ?? "*"
                let order = table == "tx" || table == "utxo" ? " ORDER BY txid DESC" : ""
                return try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table)\(order)")
            }
        }
        try old.write { db in
            for (table, tableRows) in zip(tables, rows) {
                for row in tableRows {
                    let names = Array(row.columnNames)
                    let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
                    try db.execute(
                        sql: "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(marks))",
                        arguments: StatementArguments(Array(row.databaseValues)))
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO eth_account (name, chain_id, xpub, created_at) VALUES ('eth', '1', 'xpub-text', 5);
                    INSERT INTO eth_address (account_id, idx, address, balance, nonce) VALUES (1, 0, '0xabc', '77', 2);
                    """)
        }
        return directory
    }

    /// Every row of the Ethereum tables, as text.
    static func ethereumRows(_ pool: DatabasePool) throws -> [String] {
        try pool.read { db in
            try ["eth_account", "eth_address", "eth_token", "eth_token_balance", "eth_tx", "eth_transfer"].flatMap {
                table in try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }
            }
        }
    }

    /// Checks the invariants of the v7 tables: every utxo row's wallet and txid are those of its transaction row.
    static func checkKeys(_ store: Store) throws {
        try store.pool.read { db in
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            let mismatched = try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM utxo u LEFT JOIN tx t ON t.id = u.tx_id
                    WHERE t.id IS NULL OR t.wallet_id != u.wallet_id OR t.txid != u.txid
                    """)
            #expect(mismatched == 0)
        }
    }

    @Test("a v6 database is migrated on open: the same balance, history pages, UTXOs, coins and labels; re-sync too")
    func migratesOldDatabase() async throws {
        let (control, chains) = try await Self.control()
        let directory = try Self.oldDatabase(copying: control)
        let oldPool = try DatabasePool(path: (directory as NSString).appendingPathComponent("wallet.sqlite"))
        let ethereumBefore = try Self.ethereumRows(oldPool)
        let oldUTXOs = try await oldPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM utxo") }
        try oldPool.close()
        #expect(ethereumBefore.count == 2)

        let migrated = try Store(directory: directory)
        #expect(try migrated.appliedMigrations() == Store.migrationNames)
        #expect(try Self.ethereumRows(migrated.pool) == ethereumBefore)
        try Self.checkKeys(migrated)
        let utxoRows = try await migrated.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM utxo") }
        #expect(utxoRows == oldUTXOs && (oldUTXOs ?? 0) > 0)
        // The schema is the one a new database has.
        let schema = { (store: Store) in
            try store.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_master ORDER BY name")
            }
        }
        #expect(try schema(migrated) == schema(try FlowTests.store()))

        for name in ["a", "b"] {
            let expected = try Self.answers(control, name)
            #expect(try Self.answers(migrated, name) == expected, "wallet \(name)")
            // The wallet really has what the comparison must cover.
            #expect(expected.utxos.contains { $0.isCoinbase } && expected.utxos.contains { $0.frozen })
            #expect(expected.utxos.contains { $0.height == nil } && expected.balance.immature > 0)
            #expect(expected.balance.frozen > 0 && expected.spentElsewhere.count == 1)
            #expect(expected.history.count == 9 && expected.history.contains { $0.label == "rent " + name })
        }

        // A re-sync after the migration (a confirmation, an eviction, a new spend, a reorg) answers as the control's.
        for name in ["a", "b"] {
            for store in [control, migrated] {
                _ = try await SyncFlow.run(
                    store: store, wallet: try store.wallet(named: name), source: chains[name]!.later)
            }
            let expected = try Self.answers(control, name, tip: Self.tipHeight + 2)
            #expect(try Self.answers(migrated, name, tip: Self.tipHeight + 2) == expected, "wallet \(name) re-synced")
            #expect(expected.history.count == 9 && expected.transactions.contains { $0.contains(" 7 1000") })
            #expect(!expected.history.contains { $0.height == nil })
        }
        try Self.checkKeys(migrated)

        // Deleting a wallet takes its transactions and UTXOs with it; the other keeps its answers.
        let kept = try Self.answers(migrated, "a", tip: Self.tipHeight + 2)
        try migrated.deleteWallet(id: try migrated.wallet(named: "b").requireID())
        let left = try await migrated.pool.read { db in
            try Int.fetchAll(
                db,
                sql: """
                    SELECT COUNT(DISTINCT wallet_id) FROM tx UNION ALL SELECT COUNT(DISTINCT wallet_id) FROM utxo
                    UNION ALL SELECT COUNT(*) FROM tx WHERE wallet_id != 1 UNION ALL SELECT COUNT(*) FROM utxo WHERE wallet_id != 1
                    """)
        }
        #expect(left == [1, 1, 0, 0])
        #expect(try Self.answers(migrated, "a", tip: Self.tipHeight + 2) == kept)
    }

    @Test("a migration that fails leaves the old file as it was; once the cause is gone it runs")
    func failedMigrationChangesNothing() async throws {
        let (control, _) = try await Self.control()
        let directory = try Self.oldDatabase(copying: control)
        let path = (directory as NSString).appendingPathComponent("wallet.sqlite")
        let dump = { (pool: DatabasePool) in
            try pool.read { db in
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                    + Row.fetchAll(db, sql: "SELECT * FROM tx ORDER BY rowid").map(\.description)
                    + Row.fetchAll(db, sql: "SELECT * FROM utxo ORDER BY rowid").map(\.description)
                    + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        }
        // A table in the way of the migration's first statement.
        let before: [String]
        do {
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute(sql: "CREATE TABLE tx_v7 (x)") }
            before = try dump(pool)
            try pool.close()
        }
        #expect(throws: StoreError.self) { try Store(directory: directory) }
        do {
            let pool = try DatabasePool(path: path)
            #expect(try dump(pool) == before)
            #expect(before.contains("v6-tx-history-order") && !before.contains("v7-utxo-by-tx-row"))
            try await pool.write { db in try db.execute(sql: "DROP TABLE tx_v7") }
            try pool.close()
        }
        // Control: the same file without the table migrates, and answers as the control store.
        let migrated = try Store(directory: directory)
        #expect(try migrated.appliedMigrations() == Store.migrationNames)
        #expect(try Self.answers(migrated, "a") == Self.answers(control, "a"))
    }

    @Test("a UTXO found by its outpoint is read through tx's txid index and utxo's key, never a scan of the table")
    func outpointLookupsUseKeys() throws {
        let store = try FlowTests.store()
        let statements = [
            "SELECT value FROM utxo WHERE tx_id = \(Store.transactionRow) AND vout = ?",
            Store.deleteUTXO,
            Store.insertUTXO("INSERT OR REPLACE"),
        ]
        for sql in statements {
            let plan = try store.read { db in
                let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
                let count = Int(sqlite3_bind_parameter_count(statement.sqliteStatement))
                return try Row.fetchAll(
                    statement, arguments: StatementArguments(Array(repeating: 1, count: count))
                ).map { row -> String in row["detail"] }
            }.joined(separator: "; ")
            #expect(plan.contains("sqlite_autoindex_tx_"), "\(sql): \(plan)")
            #expect(!plan.contains("SCAN"), "\(sql): \(plan)")
        }
        // The balance's frozen sum looks each frozen label's coin up the same way.
        let balancePlan = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT (SELECT u.value FROM utxo u WHERE u.tx_id = (SELECT t.id FROM tx t
                    WHERE t.wallet_id = l.wallet_id AND t.txid = substr(l.ref, 1, 64))
                    AND u.vout = CAST(substr(l.ref, 66) AS INTEGER)) FROM label l WHERE l.wallet_id = 1
                    """
            ).map { row -> String in row["detail"] }
        }.joined(separator: "; ")
        #expect(!balancePlan.contains("SCAN u") && balancePlan.contains("PRIMARY KEY"), "\(balancePlan)")
    }

    @Test("deleting a transaction row deletes its UTXO rows; a UTXO of a transaction not stored is refused")
    func transactionRowOwnsItsOutputs() async throws {
        let (store, _) = try await Self.control()
        let id = try store.wallet(named: "a").requireID()
        let coin = try #require(store.utxos(walletID: id).first { !$0.isCoinbase })
        let count = { (sql: String) in try store.read { db in try Int.fetchOne(db, sql: sql) ?? -1 } }
        let before = try count("SELECT COUNT(*) FROM utxo")
        let ofCoin = try count(
            "SELECT COUNT(*) FROM utxo WHERE wallet_id = \(id) AND txid = '\(coin.outpoint.txid.hexString)'")
        #expect(ofCoin >= 1)
        try store.write { db in
            try db.execute(
                sql: "DELETE FROM tx WHERE wallet_id = ? AND txid = ?", arguments: [id, coin.outpoint.txid.hexString])
        }
        #expect(try count("SELECT COUNT(*) FROM utxo") == before - ofCoin)
        #expect(try store.utxos(walletID: id, outpoints: [coin.outpoint]).isEmpty)
        // Its row again, from the transaction that is no longer stored: refused, nothing written.
        #expect(throws: StoreError.self) {
            try store.write { db in
                try db.execute(
                    sql: Store.insertUTXO("INSERT"),
                    arguments: [
                        id, coin.outpoint.txid.hexString, Int(coin.outpoint.vout), 1, Data([0x51]), 0, 0, nil, 0,
                        nil,  // the transaction's row looked up by txid
                    ])
            }
        }
        #expect(try count("SELECT COUNT(*) FROM utxo") == before - ofCoin)
        // Control: the other wallet's coin of a stored transaction is written back the same way.
        let other = try store.wallet(named: "b").requireID()
        let kept = try #require(store.utxos(walletID: other).first)
        try store.write { db in
            try db.execute(
                sql: Store.deleteUTXO, arguments: [other, kept.outpoint.txid.hexString, Int(kept.outpoint.vout)])
            try db.execute(
                sql: Store.insertUTXO("INSERT"),
                arguments: [
                    other, kept.outpoint.txid.hexString, Int(kept.outpoint.vout), Int64(kept.value.sats),
                    Data(kept.script.bytes), kept.keychain.rawValue, kept.index, kept.height, kept.isCoinbase, nil,
                ])
        }
        #expect(try store.utxos(walletID: other, outpoints: [kept.outpoint])[kept.outpoint] == kept)
    }
}
