import Bitcoin
import Foundation
import GRDB

/// A wallet's balance in three parts, as Bitcoin Core and BDK split it.
public struct Balance: Sendable, Equatable, Codable {
    /// Confirmed and spendable (coinbase outputs only once mature).
    public var confirmed: UInt64
    /// In unconfirmed transactions.
    public var unconfirmed: UInt64
    /// Coinbase outputs with fewer than 100 confirmations.
    public var immature: UInt64
    /// Of the confirmed and unconfirmed, what is frozen (not spendable by `send`).
    public var frozen: UInt64

    /// Everything: confirmed + unconfirmed + immature.
    public var total: UInt64 { confirmed + unconfirmed + immature }

    /// Coinbase outputs are spendable after this many confirmations.
    public static let coinbaseMaturity = 100

    public init(confirmed: UInt64, unconfirmed: UInt64, immature: UInt64, frozen: UInt64) {
        self.confirmed = confirmed
        self.unconfirmed = unconfirmed
        self.immature = immature
        self.frozen = frozen
    }

    /// The balance of `utxos` at `tipHeight`.
    public init(utxos: [UTXORecord], tipHeight: Int?) {
        confirmed = 0
        unconfirmed = 0
        immature = 0
        frozen = 0
        for utxo in utxos {
            if let height = utxo.height {
                let depth = (tipHeight ?? height) - height + 1
                if utxo.isCoinbase && depth < Self.coinbaseMaturity {
                    immature += utxo.value.sats
                } else {
                    confirmed += utxo.value.sats
                }
            } else {
                unconfirmed += utxo.value.sats
            }
            if utxo.frozen { frozen += utxo.value.sats }
        }
    }
}

/// One transaction of a wallet's history, seen from the wallet.
public struct HistoryItem: Sendable, Equatable {
    public var txid: Txid
    /// Its block height, nil while unconfirmed.
    public var height: Int?
    public var blockHash: String?
    /// Whether the confirmation was verified (merkle proof and headers, or the user's own node).
    public var verified: Bool
    /// What came in to the wallet's scripts.
    public var received: UInt64
    /// What the wallet's coins spent by it were worth.
    public var sent: UInt64
    /// The fee, when every input is the wallet's or otherwise known.
    public var fee: UInt64?
    /// received - sent.
    public var net: Int64 { Int64(received) - Int64(sent) }
    public var firstSeen: Int
}

extension Store {
    /// The balance of a wallet at `tipHeight` (`Balance(utxos:tipHeight:)`'s rule), read from the kept sums of
    /// migration v8 (`wallet_sums`) and the few rows that depend on the tip or on labels: `balance` and the web app's
    /// overview read a handful of rows, not every coin (issue 33: 200,000 coins summed on each call at 100,000
    /// transactions).
    ///
    /// Confirmed coinbase outputs are summed from the partial index that holds them alone (mature or not depends on
    /// the tip). The frozen sum starts from the frozen coins' labels and finds each coin by its key (one lookup a
    /// label); a label counts only when its text is exactly the coin's `txid:vout`.
    public func balance(walletID: Int64, tipHeight: Int?) throws(StoreError) -> Balance {
        try read { db in
            let row = try Row.fetchOne(
                db, sql: Self.balanceSQL,
                arguments: ["tip": tipHeight, "maturity": Balance.coinbaseMaturity, "wallet": walletID])
            let sums: [Int64] = (0..<4).map { row?[$0] ?? 0 }
            if row == nil {
                // No kept row: a wallet that does not exist has nothing; one that does is corrupt.
                let exists = try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM wallet WHERE id = ?)", arguments: [walletID])
                if exists == true { throw StoreError.corrupt("wallet \(walletID) has no kept sums") }
            }
            guard sums.allSatisfy({ $0 >= 0 }) else { throw StoreError.corrupt("a negative UTXO value") }
            return Balance(
                confirmed: UInt64(sums[2]), unconfirmed: UInt64(sums[0]), immature: UInt64(sums[1]),
                frozen: UInt64(sums[3]))
        }
    }

    /// The query of `balance(walletID:tipHeight:)`: unconfirmed, immature, confirmed, frozen, from the kept row of
    /// `wallet_sums`, the coinbase outputs of `utxo_coinbase` (forced: SQLite's planner, without statistics, took the
    /// spend-order index, every coin), and the frozen labels.
    static let balanceSQL: String = {
        // A coinbase output is immature below `coinbaseMaturity` confirmations; without a tip, its depth is 1.
        let immature = "(COALESCE(:tip, height) - height + 1) < :maturity"
        let frozen = """
            (SELECT COALESCE(SUM((SELECT u.value FROM utxo u
                WHERE u.tx_id = (SELECT t.id FROM tx t
                    WHERE t.wallet_id = l.wallet_id AND t.txid = substr(l.ref, 1, 64))
                AND u.vout = CAST(substr(l.ref, 66) AS INTEGER) AND l.ref = u.txid || ':' || u.vout)), 0)
                FROM label l WHERE l.wallet_id = :wallet AND l.type = 'output' AND l.spendable = 0)
            """
        return """
            SELECT s.unconfirmed, c.immature, s.confirmed + c.mature, \(frozen)
            FROM wallet_sums s, (SELECT
                    COALESCE(SUM(CASE WHEN \(immature) THEN value END), 0) AS immature,
                    COALESCE(SUM(CASE WHEN NOT \(immature) THEN value END), 0) AS mature
                FROM utxo INDEXED BY utxo_coinbase
                WHERE wallet_id = :wallet AND coinbase = 1 AND height IS NOT NULL) c
            WHERE s.wallet_id = :wallet
            """
    }()

    /// The wallet's history, newest first (unconfirmed on top).
    public func history(walletID: Int64) throws(StoreError) -> [HistoryItem] {
        let records = try transactions(walletID: walletID)
        let ours = Set(try addresses(walletID: walletID).map(\.script))
        var outputs: [OutPoint: TxOut] = [:]
        for record in records {
            for (vout, output) in record.transaction.outputs.enumerated() {
                outputs[OutPoint(txid: record.txid, vout: UInt32(vout))] = output
            }
        }
        let items = records.map { Self.historyItem($0, ours: ours, outputs: outputs) }
        // Each txid's hex once, not twice per comparison (issue 19: 20,000 items).
        let keyed = items.map { (item: $0, hex: $0.txid.hexString) }
        return keyed.sorted { a, b in
            switch (a.item.height, b.item.height) {
            case (nil, nil):
                return a.item.firstSeen > b.item.firstSeen || (a.item.firstSeen == b.item.firstSeen && a.hex < b.hex)
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?): return x > y || (x == y && a.hex < b.hex)
            }
        }.map(\.item)
    }

    /// The order of `history(walletID:)` in SQL, held by the `tx_history_order` index.
    ///
    /// Unconfirmed first (newest seen first), then by height, newest first; the txid breaks ties.
    static let historyOrder = "(height IS NULL) DESC, COALESCE(height, first_seen) DESC, txid ASC"

    /// `limit` entries of the wallet's history from `offset` on, the same items as that slice of
    /// `history(walletID:)`: SQLite reads the page in order from the `tx_history_order` index, and the page's amounts
    /// come from the wallet's scripts among its outputs and the stored transactions its inputs spend, both looked up
    /// for this page only.
    public func history(walletID: Int64, limit: Int, offset: Int) throws(StoreError) -> [HistoryItem] {
        guard limit > 0 else { return [] }
        let records: [TransactionRecord] = try read { db in
            try Self.fetchTransactions(
                db, walletID: walletID, where: "", order: Self.historyOrder, limit: limit, offset: offset)
        }
        guard !records.isEmpty else { return [] }
        let ours = try ownScripts(
            walletID: walletID, among: Set(records.flatMap { $0.transaction.outputs.map(\.scriptPubKey) }))
        let page = Set(records.map(\.txid))
        let previous = Set(records.flatMap { $0.transaction.inputs.map(\.previousOutput.txid) })
        var parents = try transactions(walletID: walletID, txids: previous.subtracting(page))
        for record in records { parents[record.txid] = record.transaction }
        // Spent scripts are looked up too: `sent` counts the wallet's coins among the page's inputs.
        let spentScripts = Set(
            records.flatMap { $0.transaction.inputs.map(\.previousOutput) }.compactMap { point in
                parents[point.txid].flatMap {
                    Int(point.vout) < $0.outputs.count ? $0.outputs[Int(point.vout)].scriptPubKey : nil
                }
            })
        let allOurs = ours.union(try ownScripts(walletID: walletID, among: spentScripts.subtracting(ours)))
        var outputs: [OutPoint: TxOut] = [:]
        for (txid, transaction) in parents {
            for (vout, output) in transaction.outputs.enumerated() {
                outputs[OutPoint(txid: txid, vout: UInt32(vout))] = output
            }
        }
        return records.map { Self.historyItem($0, ours: allOurs, outputs: outputs) }
    }

    /// Which of `scripts` are the wallet's (through the address table's unique index on wallet and script).
    func ownScripts(walletID: Int64, among scripts: Set<Script>) throws(StoreError) -> Set<Script> {
        guard !scripts.isEmpty else { return [] }
        return try read { db in
            var found: Set<Script> = []
            let wanted = scripts.map { Data($0.bytes) }
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let chunk = Array(wanted[start..<min(start + 500, wanted.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Data.fetchAll(
                    db, sql: "SELECT script FROM address WHERE wallet_id = ? AND script IN (\(marks))",
                    arguments: StatementArguments([walletID as (any DatabaseValueConvertible)] + chunk))
                for script in rows { found.insert(Script(Array(script))) }
            }
            return found
        }
    }

    /// One transaction seen from the wallet: `ours` holds its scripts, `outputs` the stored outputs its inputs may
    /// spend.
    static func historyItem(_ record: TransactionRecord, ours: Set<Script>, outputs: [OutPoint: TxOut]) -> HistoryItem {
        let tx = record.transaction
        let received = tx.outputs.filter { ours.contains($0.scriptPubKey) }.reduce(UInt64(0)) { $0 + $1.value.sats }
        var sent: UInt64 = 0
        var inputTotal: UInt64? = 0
        for input in tx.inputs {
            if let spent = outputs[input.previousOutput] {
                if ours.contains(spent.scriptPubKey) { sent += spent.value.sats }
                inputTotal = inputTotal.map { $0 + spent.value.sats }
            } else {
                inputTotal = nil
            }
        }
        let outputTotal = tx.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        let fee = tx.isCoinbase ? nil : inputTotal.flatMap { $0 >= outputTotal ? $0 - outputTotal : nil }
        return HistoryItem(
            txid: record.txid, height: record.anchor?.height, blockHash: record.anchor?.blockHash,
            verified: record.anchor?.verified ?? false, received: received, sent: sent, fee: fee,
            firstSeen: record.firstSeen)
    }

    /// The address to hand out next on `keychain`, deriving it when needed: the lowest one above the last used, or with
    /// `fresh` one above every address handed out before.
    ///
    /// Either way it is recorded as handed out (revealed),
    /// so a later `fresh` request never repeats it.
    public func nextUnusedAddress(wallet: WalletRecord, keychain: Keychain, fresh: Bool) throws(StoreError)
        -> AddressRecord
    {
        let walletID = try wallet.requireID()
        let account = try Account(record: wallet)
        guard account.isRanged(keychain) else {
            do { return try account.derive(keychain, index: 0) } catch { throw .corrupt("\(error)") }
        }
        let revealed = fresh ? (try revealedIndexes(walletID: walletID)[keychain] ?? -1) : -1
        // Two indexed queries instead of every derived address read and built (issue 19: `send` as a process).
        let (lastUsed, firstUnused, stored): (Int, Int?, AddressRecord?) = try read { db in
            let lastUsed =
                try Int.fetchOne(
                    db, sql: "SELECT MAX(idx) FROM address WHERE wallet_id = ? AND keychain = ? AND used = 1",
                    arguments: [walletID, keychain.rawValue]) ?? -1
            let firstUnused =
                fresh
                ? nil
                : try Int.fetchOne(
                    db,
                    sql: "SELECT MIN(idx) FROM address WHERE wallet_id = ? AND keychain = ? AND used = 0 AND idx > ?",
                    arguments: [walletID, keychain.rawValue, lastUsed])
            let index = firstUnused ?? max(lastUsed + 1, revealed + 1)
            let row = try Row.fetchOne(
                db,
                sql: "SELECT script, address, used FROM address WHERE wallet_id = ? AND keychain = ? AND idx = ?",
                arguments: [walletID, keychain.rawValue, index])
            let stored = row.map { row in
                let script: Data = row[0]
                return AddressRecord(
                    keychain: keychain, index: index, script: Script(Array(script)), address: row[1], used: row[2])
            }
            return (lastUsed, firstUnused, stored)
        }
        let index = firstUnused ?? max(lastUsed + 1, revealed + 1)
        let record: AddressRecord
        if let stored {
            record = stored
        } else {
            do { record = try account.derive(keychain, index: index) } catch { throw .corrupt("\(error)") }
            try write { db in
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO address (wallet_id, keychain, idx, script, address, used) VALUES (?, ?, ?, ?, ?, 0)",
                    arguments: [
                        walletID, keychain.rawValue, index, Data(record.script.bytes),
                        record.address,
                    ])
            }
        }
        try self.reveal(walletID: walletID, keychain: keychain, upTo: index)
        return record
    }
}
