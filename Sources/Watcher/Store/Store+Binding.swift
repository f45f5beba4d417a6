import GRDB
import GRDBSQLite

/// A cached statement run with its parameters bound straight from Swift values: no `StatementArguments` and no
/// `DatabaseValue` for each value.
///
/// For the sync's two hot inserts only (a transaction's row and a UTXO's row: 15,000 rows on a 5,000-transaction
/// wallet), where GRDB's checked binding cost a sixth of the store's writes (issue 33, callgrind). Everything else
/// keeps GRDB's path. The statement is reset before it is bound, so a later `execute(arguments:)` of the same cached
/// statement starts clean; a failed step is thrown as GRDB's `DatabaseError`, with SQLite's message.
struct BoundStatement {
    let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    /// SQLite copies texts and blobs it is given this way before `bind` returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private var raw: OpaquePointer { statement.sqliteStatement }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(raw, index, value)
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(raw, index, Int64(value)) } else { sqlite3_bind_null(raw, index) }
    }

    func bind(_ index: Int32, _ value: Bool) {
        sqlite3_bind_int64(raw, index, value ? 1 : 0)
    }

    func bind(_ index: Int32, text: String?) {
        guard var text else {
            sqlite3_bind_null(raw, index)
            return
        }
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(raw, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }

    func bind(_ index: Int32, blob: [UInt8]) {
        // A zero-length blob, not NULL (SQLite takes a null pointer as NULL).
        guard !blob.isEmpty else {
            sqlite3_bind_zeroblob(raw, index, 0)
            return
        }
        blob.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(raw, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }

    /// Steps the statement to its end, then resets it (its bindings stay until the next `BoundStatement`).
    func run(_ db: Database) throws {
        let code = sqlite3_step(raw)
        defer { sqlite3_reset(raw) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }
}
