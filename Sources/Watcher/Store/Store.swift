import Bitcoin
import BitcoinCrypto
import Foundation
import GRDB

/// The watcher's SQLite database (GRDB, WAL mode, foreign keys, named migrations): wallets and their descriptors,
/// derived addresses, transactions with their confirmations, the UTXOs derived from them, BIP329 labels and settings.
///
/// Every change is one SQLite transaction, so a process killed at any moment leaves the previous or the next state.
public final class Store: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (creating when needed) `wallet.sqlite` in `directory` and brings its schema up to date.
    ///
    /// - Throws: `StoreError.dataDirectory` or `.sqlite`.
    public init(directory: String) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .dataDirectory(path: directory, reason: error.localizedDescription)
        }
        path = (directory as NSString).appendingPathComponent("wallet.sqlite")
        // The database is never a special file: a device, a pipe or a directory in its place is refused, not opened.
        do { try FileOutput.requireRegularFileOrAbsent(path) } catch {
            throw .dataDirectory(path: path, reason: "\(error.reason): the wallet database must be a regular file")
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Up to 64 MB of page cache per connection instead of SQLite's 2 MB: a sync's batches insert under
            // random keys (txids), and with the small cache every batch read B-tree pages back from the file, a
            // cost that grew with the wallet (issue 19, growth; docs/benchmarks.md).
            try db.execute(sql: "PRAGMA cache_size = \(Self.cacheSize)")
            // The kept sums of migration v8 (`wallet_sums`) count a row that `INSERT OR REPLACE` replaces only when
            // SQLite fires delete triggers for it, which it does with recursive triggers on.
            try db.execute(sql: "PRAGMA recursive_triggers = ON")
            // The WAL file is cut back to this size when SQLite starts it over after a checkpoint. It keeps the size
            // of its largest run of commits otherwise: a sync's grouped commits left 47 MB beside a 110 MB database.
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw Self.map(error)
        }
        try migrate()
    }

    /// `PRAGMA journal_size_limit` of every connection: 8 MB, two seconds of a sync's commits.
    static let walSizeLimit = 8 << 20

    /// `PRAGMA cache_size` of every connection: up to 64 MB (a negative size is in KiB).
    static let cacheSize = -65536

    /// The names of the migrations, in order.
    public static let migrationNames = [
        "v1-wallets", "v2-chain", "v3-labels-settings", "v4-ethereum", "v5-utxo-spend-order", "v6-tx-history-order",
        "v7-utxo-by-tx-row",
        "v8-wallet-sums",
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-wallets") { db in
            try db.execute(
                sql: """
                    CREATE TABLE wallet (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE,
                        network TEXT NOT NULL,
                        gap_limit INTEGER NOT NULL CHECK (gap_limit BETWEEN 1 AND 1000),
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE descriptor (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        keychain INTEGER NOT NULL CHECK (keychain IN (0, 1)),
                        text TEXT NOT NULL,
                        PRIMARY KEY (wallet_id, keychain)
                    );
                    CREATE TABLE address (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        keychain INTEGER NOT NULL,
                        idx INTEGER NOT NULL,
                        script BLOB NOT NULL,
                        address TEXT NOT NULL,
                        used INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (wallet_id, keychain, idx),
                        UNIQUE (wallet_id, script)
                    );
                    CREATE TABLE keychain_state (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        keychain INTEGER NOT NULL,
                        revealed INTEGER NOT NULL DEFAULT -1,
                        PRIMARY KEY (wallet_id, keychain)
                    );
                    """)
        }
        migrator.registerMigration("v2-chain") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tx (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        txid TEXT NOT NULL,
                        raw BLOB NOT NULL,
                        height INTEGER,
                        block_hash TEXT,
                        verified INTEGER NOT NULL DEFAULT 0,
                        first_seen INTEGER NOT NULL,
                        PRIMARY KEY (wallet_id, txid)
                    );
                    CREATE TABLE utxo (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        txid TEXT NOT NULL,
                        vout INTEGER NOT NULL,
                        value INTEGER NOT NULL,
                        script BLOB NOT NULL,
                        keychain INTEGER NOT NULL,
                        idx INTEGER NOT NULL,
                        height INTEGER,
                        coinbase INTEGER NOT NULL,
                        PRIMARY KEY (wallet_id, txid, vout),
                        FOREIGN KEY (wallet_id, txid) REFERENCES tx(wallet_id, txid) ON DELETE CASCADE
                    );
                    CREATE TABLE spent_elsewhere (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        txid TEXT NOT NULL,
                        vout INTEGER NOT NULL,
                        PRIMARY KEY (wallet_id, txid, vout)
                    );
                    CREATE TABLE sync_state (
                        wallet_id INTEGER PRIMARY KEY REFERENCES wallet(id) ON DELETE CASCADE,
                        tip_height INTEGER NOT NULL,
                        tip_hash TEXT NOT NULL,
                        synced_at INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3-labels-settings") { db in
            try db.execute(
                sql: """
                    CREATE TABLE label (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        type TEXT NOT NULL,
                        ref TEXT NOT NULL,
                        label TEXT,
                        origin TEXT,
                        spendable INTEGER,
                        PRIMARY KEY (wallet_id, type, ref)
                    );
                    CREATE TABLE setting (
                        key TEXT PRIMARY KEY,
                        value TEXT NOT NULL
                    );
                    """)
        }
        registerEthereum(&migrator)
        migrator.registerMigration("v5-utxo-spend-order") { db in
            // The order coin selection reads a wallet's UTXOs in (`coins(walletID:)`), as a covering index: the
            // 10,000 rows of a large wallet come out of the index in order, where SQLite otherwise looked each one
            // up in the table and sorted them in a temporary B-tree, two thirds of the read (issue 19).
            try db.execute(
                sql: """
                    CREATE INDEX utxo_spend_order
                    ON utxo (wallet_id, height IS NULL, height, txid, vout, value, coinbase)
                    """)
        }
        migrator.registerMigration("v6-tx-history-order") { db in
            // The order of `history(walletID:)` (`Store.historyOrder`): a history page is the next `limit` entries
            // of this index, not every transaction of the wallet parsed and sorted (issue 33).
            try db.execute(
                sql: """
                    CREATE INDEX tx_history_order
                    ON tx (wallet_id, (height IS NULL) DESC, COALESCE(height, first_seen) DESC, txid ASC)
                    """)
        }
        registerUTXOByTransactionRow(&migrator)
        registerWalletSums(&migrator)
        return migrator
    }

    /// Migration v7: `utxo` rows keyed by their transaction's row and `vout`, so a sync writes the table in order.
    ///
    /// Before, `utxo` had the primary key (wallet_id, txid, vout) and a foreign key on (wallet_id, txid): a sync's
    /// batch inserted its outputs under random 64-character txids into an index of two entries per transaction, and
    /// at 100,000 transactions nearly every insert dirtied a page of its own (issue 33 item 5; docs/benchmarks.md
    /// "The sync's growth: sequential index writes"). Now `tx` has an explicit `id` (its old rowid, kept, so a foreign
    /// key can name it) and `utxo` is a `WITHOUT ROWID` table keyed by (tx_id, vout): a batch's new transactions get
    /// the next ids, and their outputs go to the end of the table. Every column the queries read keeps its name and
    /// meaning (`utxo.txid` stays, equal to its transaction's txid); only `tx`'s (wallet_id, txid) index stays random.
    ///
    /// The tables are rebuilt as SQLite's documentation says (create, copy, drop, rename, indexes again), in the
    /// migration's one transaction with foreign keys checked at its end (GRDB's `.deferred`): a failure leaves the
    /// file as it was. A `utxo` row without its transaction (which the old foreign key did not allow) is not copied;
    /// the next sync's recomputation would drop it anyway.
    static func registerUTXOByTransactionRow(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-utxo-by-tx-row") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tx_v7 (
                        id INTEGER PRIMARY KEY,
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        txid TEXT NOT NULL,
                        raw BLOB NOT NULL,
                        height INTEGER,
                        block_hash TEXT,
                        verified INTEGER NOT NULL DEFAULT 0,
                        first_seen INTEGER NOT NULL,
                        UNIQUE (wallet_id, txid)
                    );
                    INSERT INTO tx_v7 (id, wallet_id, txid, raw, height, block_hash, verified, first_seen)
                    SELECT rowid, wallet_id, txid, raw, height, block_hash, verified, first_seen FROM tx ORDER BY rowid;
                    CREATE TABLE utxo_v7 (
                        wallet_id INTEGER NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                        tx_id INTEGER NOT NULL REFERENCES tx(id) ON DELETE CASCADE,
                        txid TEXT NOT NULL,
                        vout INTEGER NOT NULL,
                        value INTEGER NOT NULL,
                        script BLOB NOT NULL,
                        keychain INTEGER NOT NULL,
                        idx INTEGER NOT NULL,
                        height INTEGER,
                        coinbase INTEGER NOT NULL,
                        PRIMARY KEY (tx_id, vout)
                    ) WITHOUT ROWID;
                    INSERT INTO utxo_v7 (wallet_id, tx_id, txid, vout, value, script, keychain, idx, height, coinbase)
                    SELECT u.wallet_id, t.id, u.txid, u.vout, u.value, u.script, u.keychain, u.idx, u.height, u.coinbase
                    FROM utxo u JOIN tx_v7 t ON t.wallet_id = u.wallet_id AND t.txid = u.txid
                    ORDER BY t.id, u.vout;
                    DROP TABLE utxo;
                    DROP TABLE tx;
                    ALTER TABLE tx_v7 RENAME TO tx;
                    ALTER TABLE utxo_v7 RENAME TO utxo;
                    CREATE INDEX utxo_spend_order
                    ON utxo (wallet_id, height IS NULL, height, txid, vout, value, coinbase);
                    CREATE INDEX tx_history_order
                    ON tx (wallet_id, (height IS NULL) DESC, COALESCE(height, first_seen) DESC, txid ASC);
                    """)
        }
    }

    private func migrate() throws(StoreError) {
        do {
            let applied = try pool.read { db in try Self.migrator.appliedIdentifiers(db) }
            if let unknown = applied.first(where: { !Self.migrationNames.contains($0) }) {
                throw StoreError.newerSchema(unknown)
            }
            // Up to date (the usual case): no write transaction at start-up.
            guard applied.count < Self.migrationNames.count else { return }
            try Self.migrator.migrate(pool)
        } catch {
            throw Self.map(error)
        }
    }

    /// The migrations applied to this database, in order.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }

    static func map(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            return .sqlite(code: error.resultCode.rawValue, message: error.message ?? "\(error)")
        }
        return .corrupt("\(error)")
    }

    /// Runs `body` in one write transaction.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write { db in try body(db) }
        } catch {
            throw Self.map(error)
        }
    }

    /// Runs `body` in a read transaction.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read { db in try body(db) }
        } catch {
            throw Self.map(error)
        }
    }

    // MARK: Settings

    /// The value of a setting (`node.url`, …).
    public func setting(_ key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    /// Sets (or with nil, removes) a setting.
    public func setSetting(_ key: String, _ value: String?) throws(StoreError) {
        try write { db in
            if let value {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
            }
        }
    }

    /// Every setting.
    public func settings() throws(StoreError) -> [String: String] {
        try read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM setting") { out[row["key"]] = row["value"] }
            return out
        }
    }
}
