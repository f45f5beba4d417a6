import Bitcoin
import Foundation
import GRDB

extension Store {
    /// Freezes (`frozen` true) or unfreezes unspent outputs of a wallet, all or nothing.
    ///
    /// They are BIP329 output labels with `spendable`: a frozen coin is `spendable: false`; unfreezing keeps a
    /// label's text (`spendable: true`) and drops a record that only froze the coin.
    ///
    /// - Throws: `StoreError.unknownOutput` when an outpoint is not an unspent output of the wallet.
    public func setFrozen(_ outpoints: [OutPoint], frozen: Bool, walletID: Int64) throws(StoreError) {
        try write { db in
            for outpoint in outpoints {
                let ref = outpoint.description
                guard
                    try Int.fetchOne(
                        db, sql: "SELECT 1 FROM utxo WHERE tx_id = \(Store.transactionRow) AND vout = ?",
                        arguments: [walletID, outpoint.txid.hexString, Int(outpoint.vout)]) != nil
                else { throw StoreError.unknownOutput(ref) }
                let existing = try Row.fetchOne(
                    db, sql: "SELECT label, origin FROM label WHERE wallet_id = ? AND type = 'output' AND ref = ?",
                    arguments: [walletID, ref])
                let text: String? = existing?["label"]
                let origin: String? = existing?["origin"]
                if !frozen && text == nil && origin == nil {
                    try db.execute(
                        sql: "DELETE FROM label WHERE wallet_id = ? AND type = 'output' AND ref = ?",
                        arguments: [walletID, ref])
                } else {
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO label (wallet_id, type, ref, label, origin, spendable)
                            VALUES (?, 'output', ?, ?, ?, ?)
                            """, arguments: [walletID, ref, text, origin, !frozen])
                }
            }
        }
    }
}
