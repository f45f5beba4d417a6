import Bitcoin

/// Plans a BIP125 replacement of an unconfirmed wallet transaction: the same inputs and the same payments to others, at
/// a higher fee rate.
///
/// The fee comes out of the change; when the change cannot pay it (or there is none), confirmed
/// wallet coins are added and a change output is made or kept.
public struct FeeBumper: Sendable {
    let store: Store
    let wallet: WalletRecord
    let planner: SpendPlanner

    public init(store: Store, wallet: WalletRecord) throws(StoreError) {
        self.store = store
        self.wallet = wallet
        planner = try SpendPlanner(store: store, wallet: wallet)
    }

    /// The fee the original transaction paid and its virtual size (as signed by this wallet).
    public struct Original: Sendable {
        public var fee: Amount
        public var vsize: Int
        public var feeRate: FeeRate
    }

    /// Plans the replacement of `txid` at `feeRate`.
    ///
    /// - Throws: `SpendError.inconsistent` when the transaction is unknown, confirmed, does not signal RBF, spends
    ///   coins of others, or the new fee rate is not higher; `.selection` when the wallet cannot pay the new fee.
    public func plan(replacing txid: Txid, feeRate: FeeRate) throws(SpendError) -> (plan: SpendPlan, original: Original)
    {
        let walletID: Int64
        let transactions: [TransactionRecord]
        let addresses: [AddressRecord]
        let utxos: [UTXORecord]
        do {
            walletID = try wallet.requireID()
            transactions = try store.transactions(walletID: walletID)
            addresses = try store.addresses(walletID: walletID)
            utxos = try store.utxos(walletID: walletID)
        } catch {
            throw .store(error)
        }
        guard let record = transactions.first(where: { $0.txid == txid }) else {
            throw .inconsistent("the wallet has no transaction \(txid)")
        }
        guard record.anchor == nil else { throw .inconsistent("\(txid) is already confirmed") }
        let original = record.transaction
        guard original.inputs.contains(where: { $0.sequence.rawValue < 0xFFFF_FFFE }) else {
            throw .inconsistent("\(txid) does not signal replace-by-fee (it was sent with --no-rbf)")
        }
        let byTxid = Dictionary(transactions.map { ($0.txid, $0.transaction) }, uniquingKeysWith: { a, _ in a })
        let byScript = Dictionary(addresses.map { ($0.script, $0) }, uniquingKeysWith: { a, _ in a })
        var inputs: [PlannedInput] = []
        var inputTotal: UInt64 = 0
        for txin in original.inputs {
            let outpoint = txin.previousOutput
            guard let previous = byTxid[outpoint.txid], Int(outpoint.vout) < previous.outputs.count,
                let owner = byScript[previous.outputs[Int(outpoint.vout)].scriptPubKey]
            else { throw .inconsistent("\(txid) spends \(outpoint), which is not this wallet's") }
            let output = previous.outputs[Int(outpoint.vout)]
            inputTotal += output.value.sats
            inputs.append(
                PlannedInput(
                    utxo: UTXORecord(
                        outpoint: outpoint, value: output.value, script: output.scriptPubKey, keychain: owner.keychain,
                        index: owner.index, height: nil, isCoinbase: false, frozen: false),
                    previousTransaction: previous, sequence: Self.bumpSequence(txin.sequence)))
        }
        // A coin added to a timelocked (miniscript recovery) spend needs the same relative lock as the others.
        let addedSequence = Self.bumpSequence(original.inputs.first?.sequence ?? .replaceByFee)
        let outputTotal = original.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        guard inputTotal >= outputTotal else { throw .inconsistent("\(txid) pays out more than its inputs") }
        let inputVSize = planner.inputVSize
        func vsize(inputs: Int, outputs: [TxOut]) -> Int {
            11 + inputs * inputVSize + outputs.reduce(0) { $0 + 9 + $1.scriptPubKey.bytes.count }
        }
        let oldFee = inputTotal - outputTotal
        let oldVSize = vsize(inputs: inputs.count, outputs: original.outputs)
        let oldRate = (try? FeeRate(fee: Amount(uncheckedSats: oldFee), vsize: oldVSize)) ?? FeeRate(satsPerKVB: 0)
        guard feeRate > oldRate else {
            throw .inconsistent("the new fee rate \(feeRate) is not above the original \(oldRate)")
        }
        // Change: an output to the wallet's change keychain (a wallet without one cannot tell change from a payment
        // to itself, so it keeps every output and adds change when it must).
        let changeKeychain: Keychain = planner.account.change == nil ? .external : .internal
        var outputs = original.outputs
        var changePosition = outputs.firstIndex {
            changeKeychain == .internal && byScript[$0.scriptPubKey]?.keychain == .internal
        }
        var changeIndex = changePosition.flatMap { byScript[outputs[$0].scriptPubKey]?.index }
        let payments = outputs.enumerated().filter { $0.offset != changePosition }.reduce(UInt64(0)) {
            $0 + $1.element.value.sats
        }
        // The fee the replacement must pay: its rate, and at least the old fee plus the relay fee of its own size
        // (BIP125 rules 3 and 4, at 1 sat/vB).
        func requiredFee(_ size: Int) -> UInt64 {
            let atRate = (try? feeRate.fee(forVSize: size).sats) ?? UInt64.max
            return max(atRate, oldFee + UInt64(size))
        }
        var total = inputTotal
        // The original's own outputs cannot fund its replacement, and BIP125 forbids new unconfirmed inputs.
        var pool = utxos.filter { !$0.frozen && $0.height != nil && $0.outpoint.txid != txid && !$0.isCoinbase }
            .sorted { $0.value > $1.value }
        while true {
            var candidate = outputs
            if changePosition == nil {
                candidate.append(TxOut(value: .zero, scriptPubKey: changeScript(keychain: changeKeychain)))
            }
            let size = vsize(inputs: inputs.count, outputs: candidate)
            let fee = requiredFee(size)
            if total >= payments + fee + Amount.dust.sats {
                let change = total - payments - fee
                if let position = changePosition {
                    outputs[position] = TxOut(
                        value: Amount(uncheckedSats: change), scriptPubKey: outputs[position].scriptPubKey)
                } else {
                    let next: AddressRecord
                    do {
                        next = try store.nextUnusedAddress(wallet: wallet, keychain: changeKeychain, fresh: false)
                    } catch {
                        throw .store(error)
                    }
                    outputs.append(TxOut(value: Amount(uncheckedSats: change), scriptPubKey: next.script))
                    changePosition = outputs.count - 1
                    changeIndex = next.index
                }
                let plan = SpendPlan(
                    inputs: inputs, outputs: outputs,
                    change: changePosition.flatMap { p in changeIndex.map { (p, $0) } },
                    fee: Amount(uncheckedSats: fee), feeRate: feeRate, lockTime: original.lockTime, algorithm: .manual,
                    waste: 0)
                return (plan, Original(fee: Amount(uncheckedSats: oldFee), vsize: oldVSize, feeRate: oldRate))
            }
            // Without change and with no coin to add: pay the fee from nothing else; a changeless result is fine
            // when the inputs cover it exactly enough.
            let sizeNoChange = vsize(inputs: inputs.count, outputs: outputs)
            if changePosition == nil, total >= payments + requiredFee(sizeNoChange),
                total - payments - requiredFee(sizeNoChange) < Amount.dust.sats
            {
                let fee = total - payments
                let plan = SpendPlan(
                    inputs: inputs, outputs: outputs, change: nil, fee: Amount(uncheckedSats: fee), feeRate: feeRate,
                    lockTime: original.lockTime, algorithm: .manual, waste: 0)
                return (plan, Original(fee: Amount(uncheckedSats: oldFee), vsize: oldVSize, feeRate: oldRate))
            }
            guard !pool.isEmpty else {
                throw .selection(.insufficientFunds(needed: payments + fee, available: total))
            }
            let coin = pool.removeFirst()
            guard let previous = byTxid[coin.outpoint.txid] else { continue }
            inputs.append(PlannedInput(utxo: coin, previousTransaction: previous, sequence: addedSequence))
            total += coin.value.sats
        }
    }

    /// The replacement's nSequence for an input: the original's when it signals RBF (BIP125) — a relative timelock
    /// of a miniscript recovery path (BIP68) stays — else 0xfffffffd.
    static func bumpSequence(_ original: SequenceNumber) -> SequenceNumber {
        original.rawValue < 0xFFFF_FFFE ? original : .replaceByFee
    }

    private func changeScript(keychain: Keychain) -> Script {
        (try? store.nextUnusedAddress(wallet: wallet, keychain: keychain, fresh: false).script) ?? .empty
    }
}
