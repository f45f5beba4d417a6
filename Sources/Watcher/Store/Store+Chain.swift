import Bitcoin
import ChainBackends
import Foundation
import GRDB

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

    static func fetchTransactions(_ db: Database, walletID: Int64) throws -> [TransactionRecord] {
        try Row.fetchAll(
            db, sql: "SELECT txid, raw, height, block_hash, verified, first_seen FROM tx WHERE wallet_id = ?",
            arguments: [walletID]
        ).map { row in
            let raw: Data = row["raw"]
            let txidText: String = row["txid"]
            guard let transaction = try? Transaction(serialized: Array(raw)), transaction.txid.hexString == txidText
            else {
                throw StoreError.corrupt("transaction \(txidText)")
            }
            let height: Int? = row["height"]
            let anchor = height.map {
                BlockAnchor(height: $0, blockHash: row["block_hash"] ?? "", verified: row["verified"])
            }
            return TransactionRecord(
                txid: transaction.txid, transaction: transaction, anchor: anchor, firstSeen: row["first_seen"])
        }
    }

    /// The unspent outputs of a wallet.
    public func utxos(walletID: Int64) throws(StoreError) -> [UTXORecord] {
        try read { db in
            let frozen = Set(
                try String.fetchAll(
                    db, sql: "SELECT ref FROM label WHERE wallet_id = ? AND type = 'output' AND spendable = 0",
                    arguments: [walletID]))
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT txid, vout, value, script, keychain, idx, height, coinbase FROM utxo WHERE wallet_id = ?
                    ORDER BY height IS NULL, height, txid, vout
                    """, arguments: [walletID]
            ).map { row in
                let txidText: String = row["txid"]
                let value: Int64 = row["value"]
                let script: Data = row["script"]
                guard let txid = try? Txid(hex: txidText), let amount = try? Amount(sats: UInt64(max(0, value))),
                    let keychain = Keychain(rawValue: row["keychain"])
                else { throw StoreError.corrupt("utxo \(txidText)") }
                let vout: Int = row["vout"]
                return UTXORecord(
                    outpoint: OutPoint(txid: txid, vout: UInt32(vout)), value: amount, script: Script(Array(script)),
                    keychain: keychain, index: row["idx"], height: row["height"], isCoinbase: row["coinbase"],
                    frozen: frozen.contains("\(txidText):\(vout)"))
            }
        }
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
        try write { db in
            let now = Int(Date().timeIntervalSince1970)
            for address in addresses {
                try db.execute(
                    sql: """
                        INSERT INTO address (wallet_id, keychain, idx, script, address, used) VALUES (?, ?, ?, ?, ?, 0)
                        ON CONFLICT (wallet_id, keychain, idx) DO NOTHING
                        """,
                    arguments: [
                        walletID, address.keychain.rawValue, address.index, Data(address.script.bytes), address.address,
                    ])
            }
            for (txid, transaction) in update.transactions {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO tx (wallet_id, txid, raw, first_seen) VALUES (?, ?, ?, ?)",
                    arguments: [walletID, txid.hexString, Data(transaction.serialized()), now])
            }
            for (script, entries) in update.histories where !entries.isEmpty {
                try db.execute(
                    sql: "UPDATE address SET used = 1 WHERE wallet_id = ? AND script = ?",
                    arguments: [walletID, Data(script.bytes)])
                for entry in entries where entry.height == nil {
                    try db.execute(
                        sql:
                            "UPDATE tx SET height = NULL, block_hash = NULL, verified = 0 WHERE wallet_id = ? AND txid = ?",
                        arguments: [walletID, entry.txid.hexString])
                }
            }
            for (txid, anchor) in update.anchors {
                try db.execute(
                    sql: "UPDATE tx SET height = ?, block_hash = ?, verified = ? WHERE wallet_id = ? AND txid = ?",
                    arguments: [anchor.height, anchor.blockHash, anchor.verified, walletID, txid.hexString])
            }
            for outpoint in update.spentElsewhere {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO spent_elsewhere (wallet_id, txid, vout) VALUES (?, ?, ?)",
                    arguments: [walletID, outpoint.txid.hexString, Int(outpoint.vout)])
            }
            try Self.recomputeUTXOs(db, walletID: walletID)
        }
    }

    /// Ends a complete sync: drops unconfirmed transactions no history named (evicted or replaced), records the tip.
    public func finishSync(walletID: Int64, tip: BlockTip, seen: Set<Txid>) throws(StoreError) {
        try write { db in
            let unconfirmed = try String.fetchAll(
                db, sql: "SELECT txid FROM tx WHERE wallet_id = ? AND height IS NULL", arguments: [walletID])
            let seenText = Set(seen.map(\.hexString))
            for txid in unconfirmed where !seenText.contains(txid) {
                try db.execute(sql: "DELETE FROM tx WHERE wallet_id = ? AND txid = ?", arguments: [walletID, txid])
            }
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO sync_state (wallet_id, tip_height, tip_hash, synced_at) VALUES (?, ?, ?, ?)",
                arguments: [walletID, tip.height, tip.hash, Int(Date().timeIntervalSince1970)])
            try Self.recomputeUTXOs(db, walletID: walletID)
        }
    }

    /// Rebuilds the UTXO table of a wallet from its transactions: outputs to its scripts that no stored transaction
    /// spends and no backend reported spent.
    static func recomputeUTXOs(_ db: Database, walletID: Int64) throws {
        var owner: [Script: (Keychain, Int)] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT keychain, idx, script FROM address WHERE wallet_id = ?", arguments: [walletID])
        {
            let script: Data = row["script"]
            if let keychain = Keychain(rawValue: row["keychain"]) {
                owner[Script(Array(script))] = (keychain, row["idx"])
            }
        }
        let transactions = try fetchTransactions(db, walletID: walletID)
        var spent: Set<OutPoint> = []
        for record in transactions { for input in record.transaction.inputs { spent.insert(input.previousOutput) } }
        for row in try Row.fetchAll(
            db, sql: "SELECT txid, vout FROM spent_elsewhere WHERE wallet_id = ?", arguments: [walletID])
        {
            let txid: String = row["txid"]
            let vout: Int = row["vout"]
            if let id = try? Txid(hex: txid) { spent.insert(OutPoint(txid: id, vout: UInt32(vout))) }
        }
        try db.execute(sql: "DELETE FROM utxo WHERE wallet_id = ?", arguments: [walletID])
        for record in transactions {
            let coinbase = record.transaction.isCoinbase
            for (vout, output) in record.transaction.outputs.enumerated() {
                guard let (keychain, index) = owner[output.scriptPubKey] else { continue }
                let outpoint = OutPoint(txid: record.txid, vout: UInt32(vout))
                guard !spent.contains(outpoint) else { continue }
                try db.execute(
                    sql: """
                        INSERT INTO utxo (wallet_id, txid, vout, value, script, keychain, idx, height, coinbase)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        walletID, record.txid.hexString, vout, Int64(output.value.sats),
                        Data(output.scriptPubKey.bytes), keychain.rawValue, index, record.anchor?.height, coinbase,
                    ])
            }
        }
    }
}

extension Transaction {
    /// Whether this is a coinbase transaction (one input spending the null outpoint).
    public var isCoinbase: Bool {
        inputs.count == 1 && inputs[0].previousOutput.vout == 0xFFFF_FFFF
            && inputs[0].previousOutput.txid.bytes.allSatisfy { $0 == 0 }
    }
}
