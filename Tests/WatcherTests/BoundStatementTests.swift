import Bitcoin
import Foundation
import GRDB
import Testing

@testable import Watcher

/// The sync's inserts bound straight from Swift values (`BoundStatement`): the same rows as GRDB's binding, SQLite's
/// refusals thrown with their message and nothing written, and the cached statement left clean for GRDB.
@Suite("Bound statements: the sync's inserts without GRDB's binding")
struct BoundStatementTests {
    @Test("a UTXO row bound directly reads back as GRDB binds it; a refused one throws and writes nothing")
    func boundRows() async throws {
        let (store, _) = try await StoreMigrationTests.control()
        let id = try store.wallet(named: "a").requireID()
        let coin = try #require(store.utxos(walletID: id).first { !$0.isCoinbase })
        let columns = "SELECT value, script, keychain, idx, height, coinbase FROM utxo WHERE txid = ? AND vout = ?"
        let arguments: StatementArguments = [coin.outpoint.txid.hexString, Int(coin.outpoint.vout)]
        let before = try store.read { db in try Row.fetchOne(db, sql: columns, arguments: arguments) }
        let row = UTXORow(
            value: Int64(coin.value.sats), script: coin.script, keychain: coin.keychain.rawValue, index: coin.index,
            height: coin.height, coinbase: coin.isCoinbase)
        // The row written again through the bound path: the same columns as GRDB's binding wrote.
        try store.write { db in
            let insert = try db.cachedStatement(sql: Store.insertUTXO("INSERT OR REPLACE"))
            try Store.bindUTXO(insert, walletID: id, coin.outpoint, row).run(db)
        }
        #expect(try store.read { db in try Row.fetchOne(db, sql: columns, arguments: arguments) } == before)
        // An empty script is an empty blob, not NULL (the column is NOT NULL); an unconfirmed height is NULL.
        let other = OutPoint(txid: coin.outpoint.txid, vout: 999)
        try store.write { db in
            let insert = try db.cachedStatement(sql: Store.insertUTXO("INSERT"))
            var empty = row
            empty.script = Script([])
            empty.height = nil
            try Store.bindUTXO(insert, walletID: id, other, empty).run(db)
        }
        let written = try store.read { db in
            try Row.fetchOne(
                db, sql: columns, arguments: [other.txid.hexString, Int(other.vout)])
        }
        #expect((written?["script"] as Data?) == Data())
        #expect((written?["height"] as Int?) == nil)
        // Refused: a UTXO of a transaction that is not stored (tx_id NULL). SQLite's message reaches the caller, and
        // the write transaction leaves nothing.
        let count = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM utxo") }
        let unknown = OutPoint(txid: Txid(unchecked: [UInt8](repeating: 7, count: 32)), vout: 0)
        let error = #expect(throws: StoreError.self) {
            try store.write { db in
                let insert = try db.cachedStatement(sql: Store.insertUTXO("INSERT OR REPLACE"))
                try Store.bindUTXO(insert, walletID: id, other, row).run(db)  // written, then rolled back
                try Store.bindUTXO(insert, walletID: id, unknown, row).run(db)
            }
        }
        #expect("\(String(describing: error))".contains("NOT NULL"))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM utxo") } == count)
        // The cached statement is left clean: GRDB's own binding of it works next.
        try store.write { db in
            try db.cachedStatement(sql: Store.insertUTXO("INSERT OR REPLACE")).execute(arguments: [
                id, coin.outpoint.txid.hexString, Int(coin.outpoint.vout), Int64(coin.value.sats),
                Data(coin.script.bytes), coin.keychain.rawValue, coin.index, coin.height, coin.isCoinbase, nil,
            ])
        }
        #expect(try store.read { db in try Row.fetchOne(db, sql: columns, arguments: arguments) } == before)
    }
}
