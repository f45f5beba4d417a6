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
///
/// Compact (issue 33, 100,000 transactions): each txid is held once and numbered, an outpoint is that number and its
/// index in 8 bytes, each script is held once and numbered, and of a transaction only what the rule needs is kept
/// (its outputs' values and scripts, the outpoints it spends, its height, whether it is a coinbase), not the parsed
/// `Transaction`; a utxo row is known by its height alone (its other columns follow from the transaction and the
/// script's owner, which do not change).
///
/// What is known of a stored transaction's output (its spender, its row) sits in arrays at the output's slot (its
/// transaction's first output's, plus its index), not in maps keyed by outpoint: a map of a 100,000-transaction
/// wallet's outpoints missed the processor's caches on each lookup and grew faster than the wallet (issue 33).
struct UTXOTracker {
    /// An outpoint: the number of its txid and its output index.
    struct Key: Hashable {
        var packed: UInt64
        init(_ tx: Int32, _ vout: UInt32) { packed = UInt64(UInt32(bitPattern: tx)) << 32 | UInt64(vout) }
        var tx: Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: packed >> 32)) }
        var vout: UInt32 { UInt32(truncatingIfNeeded: packed) }
    }

    /// What is kept of a stored transaction.
    ///
    /// A txid only spent from (or only reported spent elsewhere) has none.
    private struct Record {
        var firstInput: Int32
        var inputCount: Int32
        var firstOutput: Int32
        var outputCount: Int32
        /// Its block height, `unconfirmed` while unconfirmed.
        var height: Int32
        /// Its block's hash (`blockHashes`), -1 while unconfirmed.
        var block: Int32
        /// Whether its confirmation was checked (`BlockAnchor.verified`).
        var verified: Bool
        var coinbase: Bool
    }

    /// An output of a stored transaction.
    private struct Output {
        var value: Amount
        var script: Int32
    }

    /// A script paid by a stored transaction or derived by the wallet.
    private struct ScriptEntry {
        var script: Script
        var owner: (keychain: Keychain, index: Int)?
        /// The outputs paying it (a script derived later finds its coins here).
        var outputs: [Key] = []
    }

    private static let unconfirmed: Int32 = -1

    private var txids: [Txid] = []
    private var txNumber: [Txid: Int32] = [:]
    /// By txid number: the stored transaction's record, nil when it is not stored.
    private var records: [Record?] = []
    /// The outpoints the stored transactions spend, each transaction's in a run (`Record.firstInput`).
    private var inputs: [Key] = []
    /// The stored transactions' outputs, each transaction's in a run (`Record.firstOutput`).
    private var outputs: [Output] = []
    private var scripts: [ScriptEntry] = []
    private var scriptNumber: [Script: Int32] = [:]
    /// The hashes of the blocks confirming stored transactions, each once.
    private var blockHashes: [String] = []
    private var blockNumber: [String: Int32] = [:]
    /// By output slot (`Record.firstOutput` plus its index): the stored transaction spending it, -1 when none.
    private var spender: [Int32] = []
    /// Inputs spending the outputs of a txid not stored when they were taken in.
    ///
    /// Each is its output's index and its transaction, and the next such input of the same txid (an index into this
    /// array, -1 at the end). The txid's outputs find their spenders here when it is stored.
    private var waitingSpends: [(vout: UInt32, spender: Int32, next: Int32)] = []
    /// By txid number: the last of its `waitingSpends` (the most recently taken in), -1 when none.
    private var lastWaitingSpend: [Int32] = []
    /// Outpoints a backend reported spent by a transaction the wallet does not have.
    private var spentElsewhere: Set<Key> = []
    /// The rows of the utxo table (what was last written), by output slot: their height (`unconfirmed` while so),
    /// `noRow` for an output with none.
    private var rowHeight: [Int32] = []
    private static let noRow = Int32.min
    /// How many entries of `rowHeight` are rows.
    private(set) var unspentCount = 0
    /// By txid number: whether a history of this sync named it (`seen`).
    private var seenFlags: [Bool] = []

    /// A tracker of the wallet's addresses and the outputs reported spent elsewhere; the stored transactions are
    /// then handed in one at a time (`addStored`), and `loaded()` takes the utxo table to be what they make.
    init(addresses: [AddressRecord], spentElsewhere: Set<OutPoint>) {
        for address in addresses { setOwner(address) }
        for outpoint in spentElsewhere {
            let spent = key(outpoint)
            self.spentElsewhere.insert(spent)
        }
    }

    /// A tracker of the addresses and stored transactions (`init(addresses:spentElsewhere:)`, `addStored` for each,
    /// `loaded()`).
    init(addresses: [AddressRecord], transactions: [TransactionRecord], spentElsewhere: Set<OutPoint>) {
        self.init(addresses: addresses, spentElsewhere: spentElsewhere)
        for record in transactions { addStored(record.txid, record.transaction, anchor: record.anchor) }
        loaded()
    }

    /// Takes in a transaction stored before the sync, with its confirmation.
    mutating func addStored(_ txid: Txid, _ transaction: Transaction, anchor: BlockAnchor?) {
        let tx = add(txid, transaction)
        setAnchor(tx, anchor)
    }

    /// After the stored transactions: the utxo table holds what they make (the rule above).
    mutating func loaded() {
        for tx in records.indices {
            guard let record = records[tx] else { continue }
            for vout in 0..<UInt32(record.outputCount) {
                let key = Key(Int32(tx), vout)
                if let row = wanted(key) { setRow(key, Self.stored(row.height)) }
            }
        }
    }

    /// Whether `txid` is stored, and its confirmation if so: what `SyncRequest.known` holds of it (`Store.apply`'s
    /// end state: a new transaction unconfirmed unless its batch anchors it, a history's unconfirmed entry
    /// unanchored, an anchor set).
    func anchor(_ txid: Txid) -> BlockAnchor?? {
        guard let tx = txNumber[txid], let record = records[Int(tx)] else { return nil }
        guard record.height != Self.unconfirmed else { return .some(nil) }
        return BlockAnchor(
            height: Int(record.height), blockHash: record.block < 0 ? "" : blockHashes[Int(record.block)],
            verified: record.verified)
    }

    /// Notes that a history of this sync named `txid`.
    mutating func markSeen(_ txid: Txid) {
        seenFlags[Int(number(txid))] = true
    }

    /// Whether a history of this sync named `txid` (`markSeen`): what `Store.finishSync` keeps an unconfirmed
    /// transaction for.
    func seen(_ txid: Txid) -> Bool {
        guard let tx = txNumber[txid] else { return false }
        return seenFlags[Int(tx)]
    }

    /// The outputs to `script` that no stored transaction spends (what the old full scan handed a backend).
    func unspentOutputs(paying script: Script) -> [OutPoint] {
        guard let number = scriptNumber[script] else { return [] }
        return scripts[Int(number)].outputs.filter { spentBy($0) == nil }.map(outpoint)
    }

    /// What is kept of a stored transaction, as a `Transaction`: its inputs' outpoints and its outputs.
    ///
    /// No scriptSigs, witnesses, sequences, version or lock time (so not its txid: never stored, never hashed).
    /// Enough to check that a history entry pays or spends from a script (`ProofVerifier.verifyHistory`), which is
    /// what a source reads `SyncRequest.knownTransactions` for.
    func transaction(_ txid: Txid) -> Transaction? {
        guard let tx = txNumber[txid], let record = records[Int(tx)] else { return nil }
        let first = Int(record.firstInput)
        let spent = inputs[first..<first + Int(record.inputCount)].map { TxIn(previousOutput: outpoint($0)) }
        let firstOutput = Int(record.firstOutput)
        let paid = outputs[firstOutput..<firstOutput + Int(record.outputCount)].map { output in
            TxOut(value: output.value, scriptPubKey: scripts[Int(output.script)].script)
        }
        return Transaction(inputs: spent, outputs: paid)
    }

    /// The stored transactions a history of `script` can name: those paying it and those spending what they pay.
    func relatedTransactions(_ script: Script) -> [Txid] {
        guard let number = scriptNumber[script] else { return [] }
        let paying = scripts[Int(number)].outputs
        return paying.map { txids[Int($0.tx)] } + paying.compactMap { spentBy($0).map { txids[Int($0)] } }
    }

    /// Takes in one batch (its addresses and the backend's update, as `Store.apply` stores them) and returns the
    /// rows of the utxo table that change.
    mutating func apply(addresses: [AddressRecord], update: SyncUpdate) -> UTXOChanges {
        var affected: Set<Key> = []
        for address in addresses {
            let number = intern(address.script)
            guard scripts[Int(number)].owner == nil else { continue }
            scripts[Int(number)].owner = (address.keychain, address.index)
            affected.formUnion(scripts[Int(number)].outputs)
        }
        for (txid, transaction) in update.transactions where record(txid) == nil {
            let tx = add(txid, transaction)
            for vout in transaction.outputs.indices { affected.insert(Key(tx, UInt32(vout))) }
            for input in transaction.inputs { affected.insert(key(input.previousOutput)) }
        }
        // Confirmations, in Store.apply's order: histories' unconfirmed entries first, then the anchors. A coin's row
        // changes with its transaction's height.
        func confirm(_ txid: Txid, _ anchor: BlockAnchor?) {
            guard let tx = txNumber[txid], let record = records[Int(tx)] else { return }
            setAnchor(tx, anchor)
            guard record.height != Self.stored(anchor?.height) else { return }
            for vout in 0..<UInt32(record.outputCount) { affected.insert(Key(tx, vout)) }
        }
        for entries in update.histories.values {
            for entry in entries where entry.height == nil { confirm(entry.txid, nil) }
        }
        for (txid, anchor) in update.anchors { confirm(txid, anchor) }
        for outpoint in update.spentElsewhere {
            let spent = key(outpoint)
            spentElsewhere.insert(spent)
            affected.insert(spent)
        }
        var changes = UTXOChanges()
        for key in affected {
            let row = wanted(key)
            let height = row.map { Self.stored($0.height) }
            guard height != rowHeight(key) else { continue }
            if let row {
                changes.written[outpoint(key)] = row
            } else {
                changes.removed.append(outpoint(key))
            }
            setRow(key, height)
        }
        return changes
    }

    /// The slot of the output `key` of a stored transaction (in `outputs`, `spender`, `rowHeight`), nil when its
    /// transaction is not stored or has no such output.
    private func slot(_ key: Key) -> Int? {
        guard let record = records[Int(key.tx)], key.vout < UInt32(record.outputCount) else { return nil }
        return Int(record.firstOutput) + Int(key.vout)
    }

    /// The stored transaction spending the output `key`, nil when none (or when its transaction is not stored).
    private func spentBy(_ key: Key) -> Int32? {
        guard let slot = slot(key), spender[slot] >= 0 else { return nil }
        return spender[slot]
    }

    /// The height of the output `key`'s row in the utxo table, nil when it has none.
    private func rowHeight(_ key: Key) -> Int32? {
        guard let slot = slot(key), rowHeight[slot] != Self.noRow else { return nil }
        return rowHeight[slot]
    }

    /// Sets the output `key`'s row (nil: none).
    ///
    /// An output has a row only when its transaction is stored, so a key without a slot never gets one.
    private mutating func setRow(_ key: Key, _ height: Int32?) {
        guard let slot = slot(key) else { return }
        let had = rowHeight[slot] != Self.noRow
        rowHeight[slot] = height ?? Self.noRow
        unspentCount += (height != nil ? 1 : 0) - (had ? 1 : 0)
    }

    private static func stored(_ height: Int?) -> Int32 {
        height.map { Int32(clamping: $0) } ?? unconfirmed
    }

    private func record(_ txid: Txid) -> Record? {
        guard let tx = txNumber[txid] else { return nil }
        return records[Int(tx)]
    }

    private func outpoint(_ key: Key) -> OutPoint { OutPoint(txid: txids[Int(key.tx)], vout: key.vout) }

    /// The number of `txid`, given one when new.
    private mutating func number(_ txid: Txid) -> Int32 {
        if let tx = txNumber[txid] { return tx }
        let tx = Int32(txids.count)
        txids.append(txid)
        records.append(nil)
        lastWaitingSpend.append(-1)
        seenFlags.append(false)
        txNumber[txid] = tx
        return tx
    }

    private mutating func key(_ outpoint: OutPoint) -> Key { Key(number(outpoint.txid), outpoint.vout) }

    /// The number of `script`, given one when new.
    private mutating func intern(_ script: Script) -> Int32 {
        if let number = scriptNumber[script] { return number }
        let number = Int32(scripts.count)
        scripts.append(ScriptEntry(script: script))
        scriptNumber[script] = number
        return number
    }

    /// Sets the confirmation of the stored transaction `tx`.
    private mutating func setAnchor(_ tx: Int32, _ anchor: BlockAnchor?) {
        var block: Int32 = -1
        if let anchor {
            if let number = blockNumber[anchor.blockHash] {
                block = number
            } else {
                block = Int32(blockHashes.count)
                blockHashes.append(anchor.blockHash)
                blockNumber[anchor.blockHash] = block
            }
        }
        records[Int(tx)]?.height = Self.stored(anchor?.height)
        records[Int(tx)]?.block = block
        records[Int(tx)]?.verified = anchor?.verified ?? false
    }

    private mutating func setOwner(_ address: AddressRecord) {
        let number = intern(address.script)
        scripts[Int(number)].owner = (address.keychain, address.index)
    }

    /// Takes in a transaction, unconfirmed; returns its number.
    private mutating func add(_ txid: Txid, _ transaction: Transaction) -> Int32 {
        let tx = number(txid)
        let record = Record(
            firstInput: Int32(inputs.count), inputCount: Int32(transaction.inputs.count),
            firstOutput: Int32(outputs.count), outputCount: Int32(transaction.outputs.count),
            height: Self.unconfirmed, block: -1, verified: false, coinbase: transaction.isCoinbase)
        for (vout, output) in transaction.outputs.enumerated() {
            let script = intern(output.scriptPubKey)
            outputs.append(Output(value: output.value, script: script))
            spender.append(-1)
            rowHeight.append(Self.noRow)
            scripts[Int(script)].outputs.append(Key(tx, UInt32(vout)))
        }
        records[Int(tx)] = record
        // Its outputs' spenders taken in before it, the last taken in winning (as for those taken in after it).
        var waiting = lastWaitingSpend[Int(tx)]
        lastWaitingSpend[Int(tx)] = -1
        while waiting >= 0 {
            let spend = waitingSpends[Int(waiting)]
            if let slot = slot(Key(tx, spend.vout)), spender[slot] < 0 { spender[slot] = spend.spender }
            waiting = spend.next
        }
        for input in transaction.inputs {
            let spent = key(input.previousOutput)
            inputs.append(spent)
            if records[Int(spent.tx)] != nil {
                if let slot = slot(spent) { spender[slot] = tx }
            } else {
                waitingSpends.append((spent.vout, tx, lastWaitingSpend[Int(spent.tx)]))
                lastWaitingSpend[Int(spent.tx)] = Int32(waitingSpends.count - 1)
            }
        }
        return tx
    }

    /// The row `key` should have in the utxo table, nil when it should have none.
    private func wanted(_ key: Key) -> UTXORow? {
        guard let record = records[Int(key.tx)], key.vout < UInt32(record.outputCount), spentBy(key) == nil,
            !spentElsewhere.contains(key)
        else { return nil }
        let output = outputs[Int(record.firstOutput) + Int(key.vout)]
        let entry = scripts[Int(output.script)]
        guard let (keychain, index) = entry.owner else { return nil }
        return UTXORow(
            value: Int64(output.value.sats), script: entry.script, keychain: keychain.rawValue, index: index,
            height: record.height == Self.unconfirmed ? nil : Int(record.height), coinbase: record.coinbase)
    }
}
