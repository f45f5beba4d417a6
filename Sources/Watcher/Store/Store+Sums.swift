import GRDB

/// The kept sums of migration v8: per wallet, what `balance`, the web app's overview and the history's total read
/// instead of summing or counting every row (issue 33: a 100,000-transaction wallet's 200,000 coins).
///
/// `wallet_sums` holds, for each wallet:
/// - `unconfirmed`: the value of its `utxo` rows without a height;
/// - `confirmed`: the value of its confirmed `utxo` rows that are not coinbase outputs (whether a confirmed coinbase
///   output is mature depends on the tip, so those are summed at read time from the partial index `utxo_coinbase`,
///   which holds them alone);
/// - `transactions`: how many `tx` rows it has.
///
/// They change in the same transaction as every write of those rows: the rows a sync's batch or the recomputation of
/// the UTXOs inserts are added by `addToSums` (one statement a batch); deletes and updates (a dropped or reorganised
/// transaction, the cascades of a deleted transaction or wallet) by SQLite triggers. A row that `INSERT OR REPLACE`
/// replaces fires the delete trigger because every connection turns recursive triggers on (`Store.init`). A
/// migration that rebuilds `utxo` or `tx` drops their triggers and must create them again (`createSumTriggers`).
extension Store {
    static func registerWalletSums(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-wallet-sums") { db in
            try db.execute(
                sql: """
                    CREATE TABLE wallet_sums (
                        wallet_id INTEGER PRIMARY KEY REFERENCES wallet(id) ON DELETE CASCADE,
                        unconfirmed INTEGER NOT NULL DEFAULT 0,
                        confirmed INTEGER NOT NULL DEFAULT 0,
                        transactions INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX utxo_coinbase ON utxo (wallet_id, height, value, coinbase) WHERE coinbase = 1;
                    INSERT INTO wallet_sums (wallet_id, unconfirmed, confirmed, transactions)
                    SELECT w.id, \(recomputedColumns) FROM wallet w;
                    """)
            try createSumTriggers(db)
        }
    }

    /// The three kept columns of the wallet `w.id`, recomputed from every row (the migration; the tests' reference).
    ///
    /// The wallet's id is qualified (`w.id`, the caller's row named `w`): `tx` has a column `id` of its own since
    /// migration v7, and an unqualified `id` in its subquery would be the transaction's.
    static let recomputedColumns = """
        (SELECT COALESCE(SUM(u.value), 0) FROM utxo u WHERE u.wallet_id = w.id AND u.height IS NULL),
        (SELECT COALESCE(SUM(u.value), 0) FROM utxo u
            WHERE u.wallet_id = w.id AND u.height IS NOT NULL AND u.coinbase = 0),
        (SELECT COUNT(*) FROM tx t WHERE t.wallet_id = w.id)
        """

    /// The triggers that keep `wallet_sums`: a new wallet's row, and each delete or update of a `utxo` or `tx` row
    /// (the cascades of a dropped transaction or a deleted wallet, a reorganisation's rewrite, the row an
    /// `INSERT OR REPLACE` replaces).
    ///
    /// Inserts are counted by `addToSums`, once a batch: a trigger runs a small program for each row, and for the
    /// 15,000 rows a 5,000-transaction sync inserts that was 125 M instructions, 4.9% of the sync's client (callgrind).
    static func createSumTriggers(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TRIGGER wallet_sums_new AFTER INSERT ON wallet BEGIN
                    INSERT INTO wallet_sums (wallet_id) VALUES (NEW.id);
                END;
                CREATE TRIGGER wallet_sums_utxo_delete AFTER DELETE ON utxo BEGIN
                    UPDATE wallet_sums SET unconfirmed = unconfirmed - \(unconfirmed("OLD")),
                        confirmed = confirmed - \(confirmed("OLD"))
                    WHERE wallet_id = OLD.wallet_id;
                END;
                CREATE TRIGGER wallet_sums_utxo_update AFTER UPDATE OF wallet_id, value, height, coinbase ON utxo BEGIN
                    UPDATE wallet_sums SET unconfirmed = unconfirmed - \(unconfirmed("OLD")),
                        confirmed = confirmed - \(confirmed("OLD"))
                    WHERE wallet_id = OLD.wallet_id;
                    UPDATE wallet_sums SET unconfirmed = unconfirmed + \(unconfirmed("NEW")),
                        confirmed = confirmed + \(confirmed("NEW"))
                    WHERE wallet_id = NEW.wallet_id;
                END;
                CREATE TRIGGER wallet_sums_tx_delete AFTER DELETE ON tx BEGIN
                    UPDATE wallet_sums SET transactions = transactions - 1 WHERE wallet_id = OLD.wallet_id;
                END;
                CREATE TRIGGER wallet_sums_tx_update AFTER UPDATE OF wallet_id ON tx BEGIN
                    UPDATE wallet_sums SET transactions = transactions - 1 WHERE wallet_id = OLD.wallet_id;
                    UPDATE wallet_sums SET transactions = transactions + 1 WHERE wallet_id = NEW.wallet_id;
                END;
                """)
    }

    /// What a utxo row (`NEW` or `OLD`) adds to the unconfirmed sum.
    private static func unconfirmed(_ row: String) -> String { "IIF(\(row).height IS NULL, \(row).value, 0)" }

    /// What a utxo row adds to the confirmed sum (coinbase outputs are summed at read time).
    private static func confirmed(_ row: String) -> String {
        "IIF(\(row).height IS NOT NULL AND \(row).coinbase = 0, \(row).value, 0)"
    }

    /// Adds to the kept sums of a wallet the utxo rows just inserted and the number of `tx` rows just inserted, in
    /// the transaction that inserted them: every `INSERT` into `utxo` or `tx` is followed by this call (the
    /// triggers count deletes and updates, including the row an `INSERT OR REPLACE` replaced).
    static func addToSums(
        _ db: Database, walletID: Int64, rows: some Sequence<UTXORow> = [], transactions: Int = 0
    ) throws {
        var unconfirmed: Int64 = 0
        var confirmed: Int64 = 0
        for row in rows {
            if row.height == nil {
                unconfirmed += row.value
            } else if !row.coinbase {
                confirmed += row.value
            }
        }
        guard unconfirmed != 0 || confirmed != 0 || transactions != 0 else { return }
        try db.execute(
            sql: """
                UPDATE wallet_sums SET unconfirmed = unconfirmed + ?, confirmed = confirmed + ?,
                    transactions = transactions + ?
                WHERE wallet_id = ?
                """, arguments: [unconfirmed, confirmed, transactions, walletID])
    }

    /// The kept sums of a wallet as stored, and as recomputed from every row.
    ///
    /// Each is (unconfirmed, confirmed non-coinbase, transactions); the tests compare the two after every step.
    func keptSums(walletID: Int64) throws(StoreError) -> (kept: [Int64]?, recomputed: [Int64]) {
        try read { db in
            let kept = try Row.fetchOne(
                db, sql: "SELECT unconfirmed, confirmed, transactions FROM wallet_sums WHERE wallet_id = ?",
                arguments: [walletID]
            ).map { row in (0..<3).map { row[$0] as Int64 } }
            let row = try Row.fetchOne(
                db, sql: "SELECT \(Self.recomputedColumns) FROM (SELECT ? AS id) w", arguments: [walletID])
            return (kept, (0..<3).map { row?[$0] ?? 0 })
        }
    }
}
