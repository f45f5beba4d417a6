import Bitcoin
import ChainCore

/// A row of the utxo table: everything but its key (txid, vout).
struct UTXORow: Equatable {
    var value: Int64
    var script: Script
    var keychain: Int
    var index: Int
    var height: Int?
    var coinbase: Bool
}

/// What one batch of a sync changes in the utxo table.
struct UTXOChanges {
    /// Rows to delete (spent, or no longer the wallet's).
    var removed: [OutPoint] = []
    /// Rows to insert or replace.
    var written: [OutPoint: UTXORow] = [:]
}

/// The wallet's unspent outputs, kept in memory for the length of a sync so that each batch computes only what it
/// changes (the outputs of its new transactions, the outputs paying its newly derived scripts, the outputs its
/// inputs spend, the outputs of transactions whose confirmation moved) instead of rebuilding the set from every
/// stored transaction (which made a sync quadratic in the wallet's transactions).
///
/// The rule is `Store.recomputeUTXOs`'s: the outputs to the wallet's scripts that no stored transaction spends and
/// no backend reported spent.
struct UTXOTracker {
    private var owner: [Script: (keychain: Keychain, index: Int)] = [:]
    private var transactions: [Txid: (transaction: Transaction, height: Int?)] = [:]
    /// Outpoints spent by stored transactions.
    private var spentByTransactions: Set<OutPoint> = []
    /// Outpoints a backend reported spent by a transaction the wallet does not have.
    private var spentElsewhere: Set<OutPoint>
    /// Every output of the stored transactions, by its script (a script derived later finds its coins here).
    private var outputsByScript: [Script: [OutPoint]] = [:]
    /// The stored transaction spending each outpoint.
    private var spentBy: [OutPoint: Txid] = [:]
    private(set) var utxos: [OutPoint: UTXORow] = [:]

    init(addresses: [AddressRecord], transactions: [TransactionRecord], spentElsewhere: Set<OutPoint>) {
        self.spentElsewhere = spentElsewhere
        for address in addresses { owner[address.script] = (address.keychain, address.index) }
        for record in transactions { add(record.txid, record.transaction, height: record.anchor?.height) }
        for record in transactions {
            for vout in record.transaction.outputs.indices {
                let outpoint = OutPoint(txid: record.txid, vout: UInt32(vout))
                if let row = wanted(outpoint) { utxos[outpoint] = row }
            }
        }
    }

    /// The outputs to `script` that no stored transaction spends (what the old full scan handed a backend).
    func unspentOutputs(paying script: Script) -> [OutPoint] {
        (outputsByScript[script] ?? []).filter { !spentByTransactions.contains($0) }
    }

    /// A stored transaction (without its witnesses when the sync kept it so).
    func transaction(_ txid: Txid) -> Transaction? { transactions[txid]?.transaction }

    /// The stored transactions a history of `script` can name: those paying it and those spending what they pay.
    func relatedTransactions(_ script: Script) -> [Txid] {
        let paying = outputsByScript[script] ?? []
        return paying.map(\.txid) + paying.compactMap { spentBy[$0] }
    }

    /// Takes in one batch (its addresses and the backend's update, as `Store.apply` stores them) and returns the
    /// rows of the utxo table that change.
    mutating func apply(addresses: [AddressRecord], update: SyncUpdate) -> UTXOChanges {
        var affected: Set<OutPoint> = []
        for address in addresses where owner[address.script] == nil {
            owner[address.script] = (address.keychain, address.index)
            affected.formUnion(outputsByScript[address.script] ?? [])
        }
        for (txid, transaction) in update.transactions where transactions[txid] == nil {
            add(txid, transaction, height: nil)
            for vout in transaction.outputs.indices { affected.insert(OutPoint(txid: txid, vout: UInt32(vout))) }
            for input in transaction.inputs { affected.insert(input.previousOutput) }
        }
        // Confirmations, in Store.apply's order: histories' unconfirmed entries first, then the anchors.
        func setHeight(_ txid: Txid, _ height: Int?) {
            guard let stored = transactions[txid], stored.height != height else { return }
            transactions[txid]?.height = height
            for vout in stored.transaction.outputs.indices { affected.insert(OutPoint(txid: txid, vout: UInt32(vout))) }
        }
        for entries in update.histories.values {
            for entry in entries where entry.height == nil { setHeight(entry.txid, nil) }
        }
        for (txid, anchor) in update.anchors { setHeight(txid, anchor.height) }
        for outpoint in update.spentElsewhere {
            spentElsewhere.insert(outpoint)
            affected.insert(outpoint)
        }
        var changes = UTXOChanges()
        for outpoint in affected {
            let row = wanted(outpoint)
            guard row != utxos[outpoint] else { continue }
            if let row {
                changes.written[outpoint] = row
            } else {
                changes.removed.append(outpoint)
            }
            utxos[outpoint] = row
        }
        return changes
    }

    private mutating func add(_ txid: Txid, _ transaction: Transaction, height: Int?) {
        transactions[txid] = (transaction, height)
        for input in transaction.inputs {
            spentByTransactions.insert(input.previousOutput)
            spentBy[input.previousOutput] = txid
        }
        for (vout, output) in transaction.outputs.enumerated() {
            outputsByScript[output.scriptPubKey, default: []].append(OutPoint(txid: txid, vout: UInt32(vout)))
        }
    }

    /// The row `outpoint` should have in the utxo table, nil when it should have none.
    private func wanted(_ outpoint: OutPoint) -> UTXORow? {
        guard let stored = transactions[outpoint.txid], Int(outpoint.vout) < stored.transaction.outputs.count,
            !spentByTransactions.contains(outpoint), !spentElsewhere.contains(outpoint)
        else { return nil }
        let output = stored.transaction.outputs[Int(outpoint.vout)]
        guard let (keychain, index) = owner[output.scriptPubKey] else { return nil }
        return UTXORow(
            value: Int64(output.value.sats), script: output.scriptPubKey, keychain: keychain.rawValue, index: index,
            height: stored.height, coinbase: stored.transaction.isCoinbase)
    }
}
