import Bitcoin
import ChainBackends

/// Plans a child that pays for an unconfirmed parent (CPFP): it spends the parent's largest wallet output (and, when
/// that cannot pay, confirmed wallet coins) back to the wallet, with a fee that lifts the package (parent and child)
/// to the asked rate.
public struct ChildPaysForParent: Sendable {
    let store: Store
    let wallet: WalletRecord
    let planner: SpendPlanner

    public init(store: Store, wallet: WalletRecord) throws(StoreError) {
        self.store = store
        self.wallet = wallet
        planner = try SpendPlanner(store: store, wallet: wallet)
    }

    /// The parent as the wallet knows it.
    public struct Parent: Sendable {
        public var txid: Txid
        public var fee: Amount
        /// The virtual size of the parent as broadcast (signed).
        public var vsize: Int
        public var feeRate: FeeRate
    }

    /// The child's plan, the parent, and the fee the child must pay for the package rate.
    public struct Result: Sendable {
        public var plan: SpendPlan
        public var parent: Parent
        /// The child's virtual size as estimated for the fee (signed; at least the real one).
        public var childVSize: Int
        /// (parent fee + child fee) / (parent vsize + child vsize), in sat/vB.
        public var packageRate: Double
    }

    /// Plans a child of `parentTxid` for a package rate of at least `feeRate`.
    ///
    /// - Throws: `SpendError.inconsistent` when the parent is unknown, confirmed, has no unspent wallet output, its fee
    ///   is unknown (it spends coins of others) or already reaches the rate; `.selection` when the wallet cannot pay.
    public func plan(parent parentTxid: Txid, feeRate: FeeRate) throws(SpendError) -> Result {
        let transactions: [TransactionRecord]
        let utxos: [UTXORecord]
        let tip: BlockTip?
        do {
            let walletID = try wallet.requireID()
            transactions = try store.transactions(walletID: walletID)
            utxos = try store.utxos(walletID: walletID)
            tip = try store.syncedTip(walletID: walletID)
        } catch {
            throw .store(error)
        }
        guard let record = transactions.first(where: { $0.txid == parentTxid }) else {
            throw .inconsistent("the wallet has no transaction \(parentTxid)")
        }
        guard record.anchor == nil else { throw .inconsistent("\(parentTxid) is already confirmed") }
        let parentTx = record.transaction
        let byTxid = Dictionary(transactions.map { ($0.txid, $0.transaction) }, uniquingKeysWith: { a, _ in a })
        // The parent's fee: every input's value must be known (the wallet's own spends).
        var inputTotal: UInt64 = 0
        for input in parentTx.inputs {
            let outpoint = input.previousOutput
            guard let previous = byTxid[outpoint.txid], Int(outpoint.vout) < previous.outputs.count else {
                throw .inconsistent(
                    "the fee of \(parentTxid) is unknown: it spends \(outpoint), which the wallet does not hold")
            }
            inputTotal += previous.outputs[Int(outpoint.vout)].value.sats
        }
        let outputTotal = parentTx.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        guard inputTotal >= outputTotal else { throw .inconsistent("\(parentTxid) pays out more than its inputs") }
        let parentFee = inputTotal - outputTotal
        let parentVSize = parentTx.vsize
        let parentRate =
            (try? FeeRate(fee: Amount(uncheckedSats: parentFee), vsize: parentVSize)) ?? FeeRate(satsPerKVB: 0)
        let parent = Parent(
            txid: parentTxid, fee: Amount(uncheckedSats: parentFee), vsize: parentVSize, feeRate: parentRate)
        guard feeRate > parentRate else {
            throw .inconsistent("\(parentTxid) already pays \(parentRate), not below the asked \(feeRate)")
        }
        // The parent's largest wallet output (a frozen one too: naming the parent names it).
        let fromParent = utxos.filter { $0.outpoint.txid == parentTxid }.sorted { $0.value > $1.value }
        guard let first = fromParent.first else {
            throw .inconsistent("\(parentTxid) has no unspent output of this wallet to spend")
        }
        let change: AddressRecord
        do {
            change = try store.nextUnusedAddress(
                wallet: wallet, keychain: planner.account.change == nil ? .external : .internal, fresh: false)
        } catch {
            throw .store(error)
        }
        var inputs = [PlannedInput(utxo: first, previousTransaction: parentTx, sequence: .replaceByFee)]
        var total = first.value.sats
        var pool = utxos.filter { !$0.frozen && $0.height != nil && !$0.isCoinbase }.sorted { $0.value > $1.value }
        while true {
            let childVSize = 11 + inputs.count * planner.inputVSize + 9 + change.script.bytes.count
            // The package at the rate, and the child alone at least at 1 sat/vB (minimum relay).
            let packageFee = (try? feeRate.fee(forVSize: parentVSize + childVSize).sats) ?? UInt64.max
            let childFee = max(packageFee > parentFee ? packageFee - parentFee : 0, UInt64(childVSize))
            if total >= childFee + Amount.dust.sats {
                let plan = SpendPlan(
                    inputs: inputs,
                    outputs: [TxOut(value: Amount(uncheckedSats: total - childFee), scriptPubKey: change.script)],
                    change: (0, change.index), fee: Amount(uncheckedSats: childFee), feeRate: feeRate,
                    lockTime: LockTime(rawValue: UInt32(max(0, tip?.height ?? 0))), algorithm: .manual, waste: 0)
                let rate = Double(parentFee + childFee) / Double(parentVSize + childVSize)
                return Result(plan: plan, parent: parent, childVSize: childVSize, packageRate: rate)
            }
            guard !pool.isEmpty else {
                throw .selection(.insufficientFunds(needed: childFee + Amount.dust.sats, available: total))
            }
            let coin = pool.removeFirst()
            guard let previous = byTxid[coin.outpoint.txid] else { continue }
            inputs.append(PlannedInput(utxo: coin, previousTransaction: previous, sequence: .replaceByFee))
            total += coin.value.sats
        }
    }
}
