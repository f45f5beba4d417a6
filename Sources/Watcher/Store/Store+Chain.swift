import Bitcoin
import ChainCore
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// A derived address of a wallet.
public struct AddressRecord: Sendable, Equatable {
    public var keychain: Keychain
    public var index: Int
    public var script: Script
    public var address: String
    /// Whether any transaction pays or spends it.
    public var used: Bool

    public init(keychain: Keychain, index: Int, script: Script, address: String, used: Bool = false) {
        self.keychain = keychain
        self.index = index
        self.script = script
        self.address = address
        self.used = used
    }
}

/// A stored transaction of a wallet.
public struct TransactionRecord: Sendable {
    public var txid: Txid
    public var transaction: Transaction
    /// The confirmation, nil while unconfirmed.
    public var anchor: BlockAnchor?
    /// When this wallet first saw it (Unix seconds).
    public var firstSeen: Int
}

/// An unspent output of a wallet.
public struct UTXORecord: Sendable, Equatable {
    public var outpoint: OutPoint
    public var value: Amount
    public var script: Script
    public var keychain: Keychain
    public var index: Int
    /// Its block height, nil while unconfirmed.
    public var height: Int?
    public var isCoinbase: Bool
    /// Marked unspendable by the user (BIP329 `spendable: false`).
    public var frozen: Bool
}

/// What coin selection needs of an unspent output: no script, no derivation (`Store.coins(walletID:)`).
public struct CoinRecord: Sendable, Equatable {
    public var outpoint: OutPoint
    public var value: Amount
    /// Its block height, nil while unconfirmed.
    public var height: Int?
    public var isCoinbase: Bool
    /// Marked unspendable by the user (BIP329 `spendable: false`).
    public var frozen: Bool
}

extension Store {
    /// The derived addresses of a wallet, by keychain and index.
    public func addresses(walletID: Int64) throws(StoreError) -> [AddressRecord] {
        try read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT keychain, idx, script, address, used FROM address WHERE wallet_id = ? ORDER BY keychain, idx",
                arguments: [walletID]
            ).compactMap { row in
                guard let keychain = Keychain(rawValue: row["keychain"]) else { return nil }
                let script: Data = row["script"]
                return AddressRecord(
                    keychain: keychain, index: row["idx"], script: Script(Array(script)),
                    address: row["address"], used: row["used"])
            }
        }
    }

    /// The stored transactions of a wallet.
    public func transactions(walletID: Int64) throws(StoreError) -> [TransactionRecord] {
        try read { db in try Self.fetchTransactions(db, walletID: walletID) }
    }

    /// The stored transactions of a wallet with these txids (the previous transactions of the coins a spend chose),
    /// read through the table's primary key: a spend parses the few it needs, not the wallet's whole history.
    public func transactions(walletID: Int64, txids: Set<Txid>) throws(StoreError) -> [Txid: Transaction] {
        try read { db in
            var found: [Txid: Transaction] = [:]
            let wanted = txids.map(\.hexString)
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let chunk = Array(wanted[start..<min(start + 500, wanted.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT txid, raw FROM tx WHERE wallet_id = ? AND txid IN (\(marks))",
                    arguments: StatementArguments([walletID as (any DatabaseValueConvertible)] + chunk))
                while let row = try rows.next() {
                    let txidText: String = row[0]
                    let raw: Data = row[1]
                    guard let transaction = ParsedTransactions.shared.transaction(raw: raw, txid: txidText) else {
                        throw StoreError.corrupt("transaction \(txidText)")
                    }
                    found[transaction.txid] = transaction
                }
            }
            return found
        }
    }

    /// Hands each stored transaction of a wallet to `body`, one at a time.
    ///
    /// Parsed and its txid checked as `transactions(walletID:)` does, but not kept nor cached: a sync keeps what it
    /// needs of each, and a 100,000-transaction wallet's parsed transactions at once were most of its memory (issue
    /// 33). The anchors of one block share one string for its hash.
    func forEachTransaction(walletID: Int64, _ body: (TransactionRecord) -> Void) throws(StoreError) {
        try read { db in
            // One pass over the table: SQLite's default 2 MB of page cache for it, not the 64 MB kept for the sync's
            // writes (the reader connection would otherwise keep the table's pages, ~30 MB at 100,000).
            try db.execute(sql: "PRAGMA cache_size = -2048")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(Self.cacheSize)") }
            let uncached = { (raw: Data, txid: String) -> Transaction? in
                guard let transaction = try? Transaction(serialized: Array(raw)) else { return nil }
                return transaction.txid.hexString == txid ? transaction : nil
            }
            try Self.forEachRecord(db, sql: Self.transactionColumns, arguments: [walletID], parse: uncached, body)
        }
    }

    /// The columns `forEachRecord` reads, from one wallet's rows of `tx`.
    static let transactionColumns =
        "SELECT txid, raw, height, block_hash, verified, first_seen FROM tx WHERE wallet_id = ?"

    /// Each row of `sql` (`transactionColumns` with more conditions, an order, a limit) as a record: its transaction
    /// parsed by `parse`, which returns nil for bytes that do not parse or do not hash to the row's txid (the row is
    /// then corrupt); the anchors of one block share one string for its hash.
    static func forEachRecord(
        _ db: Database, sql: String, arguments: StatementArguments, parse: (Data, String) -> Transaction?,
        _ body: (TransactionRecord) throws -> Void
    ) throws {
        var blockHashes: Set<String> = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            let txidText: String = row[0]
            guard let transaction = parse(row[1], txidText) else { throw StoreError.corrupt("transaction \(txidText)") }
            let height: Int? = row[2]
            var anchor: BlockAnchor?
            if let height {
                let text: String? = row[3]
                anchor = BlockAnchor(
                    height: height, blockHash: blockHashes.insert(text ?? "").memberAfterInsert, verified: row[4])
            }
            try body(
                TransactionRecord(txid: transaction.txid, transaction: transaction, anchor: anchor, firstSeen: row[5]))
        }
    }

    static func fetchTransactions(
        _ db: Database, walletID: Int64, where condition: String = "", order: String? = nil, limit: Int? = nil,
        offset: Int = 0
    ) throws -> [TransactionRecord] {
        var sql = transactionColumns + condition
        var arguments: [any DatabaseValueConvertible] = [walletID]
        if let order { sql += " ORDER BY " + order }
        if let limit {
            sql += " LIMIT ? OFFSET ?"
            arguments += [limit, offset]
        }
        var records: [TransactionRecord] = []
        let cached = { (raw: Data, txid: String) in ParsedTransactions.shared.transaction(raw: raw, txid: txid) }
        try forEachRecord(db, sql: sql, arguments: StatementArguments(arguments), parse: cached) { records.append($0) }
        return records
    }

    /// The unspent outputs of a wallet.
    public func utxos(walletID: Int64) throws(StoreError) -> [UTXORecord] {
        try read { db in
            let frozen = try Self.frozenRefs(db, walletID: walletID)
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT txid, vout, value, script, keychain, idx, height, coinbase FROM utxo WHERE wallet_id = ?
                    ORDER BY height IS NULL, height, txid, vout
                    """, arguments: [walletID]
            ).map { row in try Self.utxo(row, frozen: frozen) }
        }
    }

    /// The unspent outputs of a wallet at `outpoints` (those it holds; the others are left out), read through the
    /// table's primary key: a spend reads the scripts and derivations of the coins it chose only.
    ///
    /// A `utxo` row is keyed by its transaction's row (migration v7), found by `transactionRow`.
    public func utxos(walletID: Int64, outpoints: [OutPoint]) throws(StoreError) -> [OutPoint: UTXORecord] {
        try read { db in
            let frozen = try Self.frozenRefs(db, walletID: walletID)
            var found: [OutPoint: UTXORecord] = [:]
            // One compiled statement for every outpoint (a 1 BTC send over many small coins asks for 50 or more).
            let statement = try db.cachedStatement(
                sql: """
                    SELECT txid, vout, value, script, keychain, idx, height, coinbase FROM utxo
                    WHERE tx_id = \(Self.transactionRow) AND vout = ?
                    """)
            for outpoint in outpoints {
                guard
                    let row = try Row.fetchOne(
                        statement, arguments: [walletID, outpoint.txid.hexString, Int(outpoint.vout)])
                else { continue }
                found[outpoint] = try Self.utxo(row, frozen: frozen)
            }
            return found
        }
    }

    /// The query of `coins(walletID:)`: answered from the `utxo_spend_order` index alone (migration v5).
    static let coinsSQL = """
        SELECT txid, vout, value, height, coinbase FROM utxo WHERE wallet_id = ?
        ORDER BY height IS NULL, height, txid, vout
        """

    /// What coin selection needs of every unspent output of a wallet (outpoint, value, height, coinbase, frozen),
    /// in the order of `utxos(walletID:)`, without the script and derivation columns (issue 19: `send` over
    /// 10,000 UTXOs read and built every row whole).
    ///
    /// With `limit`, the first `limit` of them only (a large wallet's selection candidates, `SpendPlanner`).
    public func coins(walletID: Int64, limit: Int? = nil) throws(StoreError) -> [CoinRecord] {
        try read { db in
            let frozen = try Self.frozenRefs(db, walletID: walletID)
            var coins: [CoinRecord] = []
            // The columns are read straight from SQLite's statement (the row cursor steps it): no String, Data or
            // DatabaseValue for each of a large wallet's 10,000 rows (issue 19).
            let statement = try db.makeStatement(sql: Self.coinsSQL + " LIMIT ?")
            let rows = try Row.fetchCursor(statement, arguments: [walletID, limit ?? -1])
            let raw = statement.sqliteStatement
            while try rows.next() != nil {
                let vout = sqlite3_column_int64(raw, 1)
                let value = sqlite3_column_int64(raw, 2)
                let height: Int? =
                    sqlite3_column_type(raw, 3) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(raw, 3))
                let text = UnsafeRawBufferPointer(
                    start: sqlite3_column_text(raw, 0), count: Int(sqlite3_column_bytes(raw, 0)))
                guard let txid = try? Txid(hexUTF8: text), let amount = try? Amount(sats: UInt64(max(0, value))),
                    let index = UInt32(exactly: vout)
                else { throw StoreError.corrupt("utxo \(String(decoding: text, as: UTF8.self)):\(vout)") }
                coins.append(
                    CoinRecord(
                        outpoint: OutPoint(txid: txid, vout: index), value: amount, height: height,
                        isCoinbase: sqlite3_column_int64(raw, 4) != 0,
                        frozen: !frozen.isEmpty && frozen.contains("\(txid):\(vout)")))
            }
            return coins
        }
    }

    /// The `TXID:VOUT` references of a wallet's frozen outputs (BIP329 `spendable: false`).
    static func frozenRefs(_ db: Database, walletID: Int64) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db, sql: "SELECT ref FROM label WHERE wallet_id = ? AND type = 'output' AND spendable = 0",
                arguments: [walletID]))
    }

    /// A `utxo` row (txid, vout, value, script, keychain, idx, height, coinbase) as a record.
    static func utxo(_ row: Row, frozen: Set<String>) throws -> UTXORecord {
        let txidText: String = row[0]
        let vout: Int = row[1]
        let value: Int64 = row[2]
        let script: Data = row[3]
        guard let txid = try? Txid(hex: txidText), let amount = try? Amount(sats: UInt64(max(0, value))),
            let keychain = Keychain(rawValue: row[4]), let index = UInt32(exactly: vout)
        else { throw StoreError.corrupt("utxo \(txidText)") }
        return UTXORecord(
            outpoint: OutPoint(txid: txid, vout: index), value: amount, script: Script(Array(script)),
            keychain: keychain, index: row[5], height: row[6], isCoinbase: row[7],
            frozen: !frozen.isEmpty && frozen.contains("\(txidText):\(vout)"))
    }

    /// The tip of the last completed sync.
    public func syncedTip(walletID: Int64) throws(StoreError) -> BlockTip? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT tip_height, tip_hash FROM sync_state WHERE wallet_id = ?", arguments: [walletID])
            else { return nil }
            return BlockTip(height: row["tip_height"], hash: row["tip_hash"])
        }
    }

    /// Applies one batch of a sync in one transaction: the derived addresses, the update's transactions and
    /// confirmations, outputs seen spent elsewhere; then recomputes the UTXOs.
    public func apply(walletID: Int64, addresses: [AddressRecord], update: SyncUpdate) throws(StoreError) {
        try apply(walletID: walletID, addresses: addresses, update: update, utxoChanges: nil)
    }

    /// `apply`, with the UTXO rows that change given (a sync's `UTXOTracker`) instead of recomputed from every stored
    /// transaction.
    func apply(walletID: Int64, addresses: [AddressRecord], update: SyncUpdate, utxoChanges: UTXOChanges?)
        throws(StoreError)
    {
        try apply(walletID: walletID, batches: [SyncBatch(addresses: addresses, update: update, changes: utxoChanges)])
    }

    /// One checked batch of a sync: its addresses, the backend's update, the UTXO rows it changes (`nil`: recomputed
    /// from every stored transaction).
    ///
    /// A batch waits in memory for its commit, so it holds the new transactions as the bytes the store writes, not
    /// parsed: the update is kept without them (a 100,000-transaction sync's later commits group 10 seconds of
    /// batches; holding them parsed, with their witnesses, took its peak memory from 160 MB to 195 MB).
    struct SyncBatch {
        var addresses: [AddressRecord]
        /// The backend's update, without its transactions (`transactions` holds them).
        var update: SyncUpdate
        var changes: UTXOChanges?
        /// The update's new transactions, each with its serialization.
        var transactions: [(txid: Txid, raw: [UInt8])]

        init(addresses: [AddressRecord], update: SyncUpdate, changes: UTXOChanges?) {
            self.addresses = addresses
            self.changes = changes
            transactions = update.transactions.map { txid, transaction in
                (txid, update.rawTransactions[txid] ?? transaction.serialized())
            }
            var kept = update
            kept.transactions = [:]
            kept.rawTransactions = [:]
            self.update = kept
        }
    }

    /// Applies several batches of a sync, in order, in one transaction: the state after each batch applied alone, in
    /// one commit (a sync's `commitInterval`).
    func apply(walletID: Int64, batches: [SyncBatch]) throws(StoreError) {
        guard !batches.isEmpty else { return }
        try write { db in
            var rows: [Txid: Int64] = [:]
            for batch in batches {
                try Self.apply(
                    db, walletID: walletID, addresses: batch.addresses, update: batch.update,
                    transactions: batch.transactions, utxoChanges: batch.changes, transactionRows: &rows)
            }
        }
    }

    /// The body of `apply`, in the caller's transaction.
    ///
    /// `transactionRows` collects the row ids of the transactions it inserts, the keys of their UTXO rows (for the
    /// batches after it in the same transaction too).
    private static func apply(
        _ db: Database, walletID: Int64, addresses: [AddressRecord], update: SyncUpdate,
        transactions: [(txid: Txid, raw: [UInt8])], utxoChanges: UTXOChanges?, transactionRows: inout [Txid: Int64]
    ) throws {
        let now = Int(Date().timeIntervalSince1970)
        let insertAddress = try db.cachedStatement(
            sql: """
                INSERT INTO address (wallet_id, keychain, idx, script, address, used) VALUES (?, ?, ?, ?, ?, 0)
                ON CONFLICT (wallet_id, keychain, idx) DO NOTHING
                """)
        for address in addresses {
            try insertAddress.execute(
                arguments: [
                    walletID, address.keychain.rawValue, address.index, Data(address.script.bytes), address.address,
                ])
        }
        // A new transaction is inserted with its confirmation when the update has one: one row written, not
        // a row and then an update that moves its `tx_history_order` entry (issue 33: a fifth of the sync's
        // statements). The end state is the one of the updates below in their order.
        let insertTransaction = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO tx (wallet_id, txid, raw, first_seen, height, block_hash, verified)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        var insertedConfirmed: Set<Txid> = []
        let changesBefore = db.totalChangesCount
        for (txid, raw) in transactions {
            let anchor = update.anchors[txid]
            let bound = BoundStatement(insertTransaction)
            bound.bind(1, walletID)
            bound.bind(2, text: txid.hexString)
            bound.bind(3, blob: raw)
            bound.bind(4, now)
            bound.bind(5, anchor?.height)
            bound.bind(6, text: anchor?.blockHash)
            bound.bind(7, anchor?.verified ?? false)
            try bound.run(db)
            guard db.changesCount > 0 else { continue }
            transactionRows[txid] = db.lastInsertedRowID
            if anchor != nil { insertedConfirmed.insert(txid) }
        }
        try Self.addToSums(db, walletID: walletID, transactions: db.totalChangesCount - changesBefore)
        let markUsed = try db.cachedStatement(sql: "UPDATE address SET used = 1 WHERE wallet_id = ? AND script = ?")
        let unconfirm = try db.cachedStatement(
            sql: "UPDATE tx SET height = NULL, block_hash = NULL, verified = 0 WHERE wallet_id = ? AND txid = ?")
        for (script, entries) in update.histories where !entries.isEmpty {
            try markUsed.execute(arguments: [walletID, Data(script.bytes)])
            for entry in entries where entry.height == nil {
                try unconfirm.execute(arguments: [walletID, entry.txid.hexString])
                insertedConfirmed.remove(entry.txid)
            }
        }
        let confirm = try db.cachedStatement(
            sql: "UPDATE tx SET height = ?, block_hash = ?, verified = ? WHERE wallet_id = ? AND txid = ?")
        for (txid, anchor) in update.anchors where !insertedConfirmed.contains(txid) {
            try confirm.execute(arguments: [
                anchor.height, anchor.blockHash, anchor.verified, walletID, txid.hexString,
            ])
        }
        let spentElsewhere = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO spent_elsewhere (wallet_id, txid, vout) VALUES (?, ?, ?)")
        for outpoint in update.spentElsewhere {
            try spentElsewhere.execute(arguments: [walletID, outpoint.txid.hexString, Int(outpoint.vout)])
        }
        if let utxoChanges {
            try Self.write(utxoChanges, db, walletID: walletID, transactionRows: transactionRows)
        } else {
            try Self.recomputeUTXOs(db, walletID: walletID)
        }
    }

    /// The `tx.id` of the transaction of a wallet with a txid (arguments: wallet id, txid hex): the key of its
    /// `utxo` rows (migration v7), found through `tx`'s (wallet_id, txid) index.
    static let transactionRow = "(SELECT id FROM tx WHERE wallet_id = ? AND txid = ?)"

    /// Deletes one `utxo` row (arguments: wallet id, txid hex, vout).
    static let deleteUTXO = "DELETE FROM utxo WHERE tx_id = \(transactionRow) AND vout = ?"

    /// Inserts a `utxo` row (arguments: wallet id, txid hex, vout, value, script, keychain, idx, height, coinbase).
    ///
    /// It is keyed by its transaction's row, which must be stored (a `NOT NULL` constraint fails otherwise, as the
    /// foreign key on (wallet_id, txid) did before migration v7). That row is the tenth argument when it is known (a
    /// transaction the same SQLite transaction inserted), else it is found through `tx`'s txid index (`coalesce`
    /// does not evaluate the lookup when the row is given: a read all over the index for each of a sync's coins;
    /// issue 33).
    static func insertUTXO(_ verb: String) -> String {
        """
        \(verb) INTO utxo (wallet_id, tx_id, txid, vout, value, script, keychain, idx, height, coinbase)
        VALUES (?1, coalesce(?10, (SELECT id FROM tx WHERE wallet_id = ?1 AND txid = ?2)), ?2, ?3, ?4, ?5, ?6, ?7, ?8,
            ?9)
        """
    }

    /// `insertUTXO`'s statement bound to a row (a sync writes 10,000 on a 5,000-transaction wallet).
    static func bindUTXO(_ statement: Statement, walletID: Int64, _ outpoint: OutPoint, _ row: UTXORow)
        -> BoundStatement
    {
        let bound = BoundStatement(statement)
        bound.bind(1, walletID)
        bound.bind(2, text: outpoint.txid.hexString)
        bound.bind(3, Int64(outpoint.vout))
        bound.bind(4, row.value)
        bound.bind(5, blob: row.script.bytes)
        bound.bind(6, row.keychain)
        bound.bind(7, row.index)
        bound.bind(8, row.height)
        bound.bind(9, row.coinbase)
        return bound
    }

    /// Writes the UTXO rows a batch changes; `transactionRows`: the row ids of transactions this SQLite transaction
    /// inserted, by txid.
    static func write(_ changes: UTXOChanges, _ db: Database, walletID: Int64, transactionRows: [Txid: Int64]) throws {
        let delete = try db.cachedStatement(sql: deleteUTXO)
        for outpoint in changes.removed {
            try delete.execute(arguments: [walletID, outpoint.txid.hexString, Int(outpoint.vout)])
        }
        // A row of a transaction this SQLite transaction inserted cannot exist yet (its `tx.id` is new: the rows of
        // a deleted transaction went with it), so it is a plain `INSERT`. `INSERT OR REPLACE` may delete a row and fire
        // the sums' trigger, so SQLite keeps a statement journal for it: a copy of each page it changes, moved to a
        // temporary file for the rest of the transaction once one statement's passes 64 KB (a B-tree rebalanced
        // over many pages). With a 100,000-transaction sync's longer commits, that file took 196,708 writes (issue 33).
        let insert = try db.cachedStatement(sql: insertUTXO("INSERT"))
        let replace = try db.cachedStatement(sql: insertUTXO("INSERT OR REPLACE"))
        for (outpoint, row) in changes.written {
            if let id = transactionRows[outpoint.txid] {
                let bound = bindUTXO(insert, walletID: walletID, outpoint, row)
                bound.bind(10, id)
                try bound.run(db)
            } else {
                try bindUTXO(replace, walletID: walletID, outpoint, row).run(db)
            }
        }
        try addToSums(db, walletID: walletID, rows: changes.written.values)
    }

    /// The outputs a backend reported spent by a transaction the wallet does not have.
    func spentElsewhere(walletID: Int64) throws(StoreError) -> Set<OutPoint> {
        try read { db in
            var spent: Set<OutPoint> = []
            for row in try Row.fetchAll(
                db, sql: "SELECT txid, vout FROM spent_elsewhere WHERE wallet_id = ?", arguments: [walletID])
            {
                let txid: String = row[0]
                let vout: Int = row[1]
                if let id = try? Txid(hex: txid) { spent.insert(OutPoint(txid: id, vout: UInt32(vout))) }
            }
            return spent
        }
    }

    /// How many transactions a wallet has stored: the count kept in `wallet_sums` (migration v8; counting the rows
    /// read the whole wallet's index, issue 33), or the rows counted for a wallet without one.
    public func transactionCount(walletID: Int64) throws(StoreError) -> Int {
        try read { db in
            if let kept = try Int.fetchOne(
                db, sql: "SELECT transactions FROM wallet_sums WHERE wallet_id = ?", arguments: [walletID])
            {
                return kept
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tx WHERE wallet_id = ?", arguments: [walletID]) ?? 0
        }
    }

    /// Ends a complete sync: drops unconfirmed transactions no history named (evicted or replaced), records the tip.
    public func finishSync(walletID: Int64, tip: BlockTip, seen: Set<Txid>) throws(StoreError) {
        try finishSync(walletID: walletID, tip: tip, seen: seen.contains, utxosCurrent: false)
    }

    /// `finishSync`, with `seen` telling whether a history named a txid; with `utxosCurrent` (every batch wrote its
    /// UTXO changes) the UTXOs are recomputed only when an evicted transaction was dropped.
    func finishSync(walletID: Int64, tip: BlockTip, seen: (Txid) -> Bool, utxosCurrent: Bool) throws(StoreError) {
        try write { db in
            let unconfirmed = try String.fetchAll(
                db, sql: "SELECT txid FROM tx WHERE wallet_id = ? AND height IS NULL", arguments: [walletID])
            var dropped = false
            // A stored txid that does not parse was never named by a history (none is stored that way: `apply`
            // writes `Txid.hexString`).
            for txid in unconfirmed where !((try? Txid(hex: txid)).map(seen) ?? false) {
                try db.execute(sql: "DELETE FROM tx WHERE wallet_id = ? AND txid = ?", arguments: [walletID, txid])
                dropped = true
            }
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO sync_state (wallet_id, tip_height, tip_hash, synced_at) VALUES (?, ?, ?, ?)",
                arguments: [walletID, tip.height, tip.hash, Int(Date().timeIntervalSince1970)])
            if dropped || !utxosCurrent { try Self.recomputeUTXOs(db, walletID: walletID) }
        }
    }

    /// Rebuilds the UTXO table of a wallet from its transactions.
    ///
    /// The UTXOs are the outputs to its scripts that no stored transaction spends and no backend reported spent.
    /// Only the rows that change are written (a sync calls this once per batch).
    static func recomputeUTXOs(_ db: Database, walletID: Int64) throws {
        var owner: [Script: (Keychain, Int)] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT keychain, idx, script FROM address WHERE wallet_id = ?", arguments: [walletID])
        {
            let script: Data = row[2]
            let index: Int = row[1]
            if let keychain = Keychain(rawValue: row[0]) { owner[Script(Array(script))] = (keychain, index) }
        }
        let transactions = try fetchTransactions(db, walletID: walletID)
        var spent: Set<OutPoint> = []
        for record in transactions { for input in record.transaction.inputs { spent.insert(input.previousOutput) } }
        for row in try Row.fetchAll(
            db, sql: "SELECT txid, vout FROM spent_elsewhere WHERE wallet_id = ?", arguments: [walletID])
        {
            let txid: String = row[0]
            let vout: Int = row[1]
            if let id = try? Txid(hex: txid) { spent.insert(OutPoint(txid: id, vout: UInt32(vout))) }
        }
        // What the table should hold, keyed by (txid hex, vout).
        var wanted: [UTXOKey: UTXORow] = [:]
        for record in transactions {
            let coinbase = record.transaction.isCoinbase
            var cachedTxidText: String?
            for (vout, output) in record.transaction.outputs.enumerated() {
                guard let (keychain, index) = owner[output.scriptPubKey] else { continue }
                guard !spent.contains(OutPoint(txid: record.txid, vout: UInt32(vout))) else { continue }
                let txidText = cachedTxidText ?? record.txid.hexString
                cachedTxidText = txidText
                wanted[UTXOKey(txid: txidText, vout: vout)] = UTXORow(
                    value: Int64(output.value.sats), script: output.scriptPubKey, keychain: keychain.rawValue,
                    index: index, height: record.anchor?.height, coinbase: coinbase)
            }
        }
        let delete = try db.cachedStatement(sql: deleteUTXO)
        for row in try Row.fetchAll(
            db, sql: "SELECT txid, vout, value, keychain, idx, height, coinbase FROM utxo WHERE wallet_id = ?",
            arguments: [walletID])
        {
            let key = UTXOKey(txid: row[0], vout: row[1])
            let value: Int64 = row[2]
            let keychain: Int = row[3]
            let index: Int = row[4]
            let height: Int? = row[5]
            let coinbase: Bool = row[6]
            if let want = wanted[key], want.value == value, want.keychain == keychain, want.index == index,
                want.height == height, want.coinbase == coinbase
            {
                wanted[key] = nil  // already there as it should be
            } else {
                try delete.execute(arguments: [walletID, key.txid, key.vout])
            }
        }
        let insert = try db.cachedStatement(sql: insertUTXO("INSERT"))
        for (key, row) in wanted {
            try insert.execute(arguments: [
                walletID, key.txid, key.vout, row.value, Data(row.script.bytes), row.keychain,
                row.index, row.height, row.coinbase, nil,
            ])
        }
        try addToSums(db, walletID: walletID, rows: wanted.values)
    }
}

/// A row of the utxo table: its key, and the rest.
private struct UTXOKey: Hashable {
    var txid: String
    var vout: Int
}

/// Parsed stored transactions by their raw bytes.
///
/// The per-batch reloads of a sync then do not parse and hash the same transactions again. A raw transaction always
/// parses to the same value; the txid check is kept (a row whose txid column differs from the hash of its bytes is
/// still reported corrupt).
final class ParsedTransactions: Sendable {
    static let shared = ParsedTransactions()
    /// Entries kept before the cache starts over (a few MB).
    static let limit = 200_000

    private let entries = Mutex<[Data: (txid: String, transaction: Transaction)]>([:])

    /// The transaction of `raw`, or nil when it does not parse or its txid is not `txid` (hex).
    func transaction(raw: Data, txid: String) -> Transaction? {
        if let hit = entries.withLock({ $0[raw] }) { return hit.txid == txid ? hit.transaction : nil }
        guard let transaction = try? Transaction(serialized: Array(raw)) else { return nil }
        let computed = transaction.txid.hexString
        entries.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll() }
            entries[raw] = (computed, transaction)
        }
        return computed == txid ? transaction : nil
    }
}

extension Transaction {
    /// Whether this is a coinbase transaction (one input spending the null outpoint).
    public var isCoinbase: Bool {
        inputs.count == 1 && inputs[0].previousOutput.vout == 0xFFFF_FFFF
            && inputs[0].previousOutput.txid.bytes.allSatisfy { $0 == 0 }
    }
}
