import Bitcoin
import ChainCore
import Descriptors

/// A payment to make: an address and an amount (or everything, for `--max`).
public struct Recipient: Sendable, Equatable {
    public var address: Address
    /// Nil for the single `--max` recipient.
    public var amount: Amount?

    public init(address: Address, amount: Amount?) {
        self.address = address
        self.amount = amount
    }
}

/// One input of a planned transaction, with what a PSBT needs to describe it.
public struct PlannedInput: Sendable {
    public var utxo: UTXORecord
    /// The whole previous transaction (PSBT `non_witness_utxo`).
    public var previousTransaction: Transaction
    public var sequence: SequenceNumber
}

/// An unsigned transaction as coin selection laid it out, before it becomes a PSBT: the inputs with their previous
/// transactions and derivation indexes, the outputs, which output is change (and its index), the fee.
public struct SpendPlan: Sendable {
    public var inputs: [PlannedInput]
    public var outputs: [TxOut]
    /// The position of the change output and its derivation index on the change keychain.
    public var change: (position: Int, index: Int)?
    public var fee: Amount
    public var feeRate: FeeRate
    public var lockTime: LockTime
    public var algorithm: SelectionAlgorithm
    public var waste: Int64

    /// The unsigned transaction.
    public var transaction: Transaction {
        Transaction(
            version: 2,
            inputs: inputs.map {
                TxIn(previousOutput: $0.utxo.outpoint, scriptSig: .empty, sequence: $0.sequence, witness: Witness([]))
            },
            outputs: outputs, lockTime: lockTime)
    }
}

/// Errors while planning a spend.
public enum SpendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An address for another network than the wallet's.
    case wrongNetwork(address: String, wallet: Network)
    /// An amount below the dust threshold.
    case dust(String)
    /// A `--utxo` the wallet does not hold (or holds frozen).
    case unknownUTXO(String)
    /// `--max` with more than one recipient, or other inconsistent options.
    case inconsistent(String)
    case selection(CoinSelectionError)
    case store(StoreError)

    public var description: String {
        switch self {
        case .wrongNetwork(let address, let network): "\(address) is not a \(network.rawValue) address"
        case .dust(let what): "\(what) is below the dust threshold (546 sat)"
        case .unknownUTXO(let outpoint): "the wallet has no spendable output \(outpoint)"
        case .inconsistent(let why): why
        case .selection(let error): error.description
        case .store(let error): error.description
        }
    }
}

/// Plans spends from a wallet's UTXOs: effective-value coin selection, change to the next unused change address, RBF
/// sequence numbers by default and an anti-fee-sniping locktime (Bitcoin Core's: the tip height, sometimes up to 100
/// blocks earlier).
public struct SpendPlanner: Sendable {
    let store: Store
    let wallet: WalletRecord
    /// The wallet's account (its descriptors parsed).
    public let account: Account

    /// How many coins, in spend order, automatic selection chooses among before it reads every coin.
    ///
    /// A wallet with more coins than this selects among the first `candidateLimit` (confirmed before unconfirmed,
    /// oldest first; docs/watcher.md, "Coin selection in very large wallets"), and among all of them only when those
    /// do not pay. `--max` and `--utxo` always read every coin.
    public var candidateLimit = SpendPlanner.defaultCandidateLimit

    /// 50,000 coins: some 30 times what one standard transaction can spend (at most ~1,450 P2WPKH inputs in
    /// 100,000 vbytes), so branch and bound and the single random draw still have far more choice than they can use,
    /// while `send` on a 200,000-coin wallet reads a quarter of its coins (issue 33).
    public static let defaultCandidateLimit = 50_000

    public init(store: Store, wallet: WalletRecord) throws(StoreError) {
        self.store = store
        self.wallet = wallet
        account = try Account(record: wallet)
    }

    /// The virtual size a signed input of this wallet adds.
    public var inputVSize: Int {
        switch account.external.expression {
        case .wpkh: 68
        case .tr(_, .leaf(.multiA(let k, let keys, _))):
            // The script path of a one-leaf multi_a: 41 non-witness bytes (weight 164), then the witness: item count,
            // k 64-byte signatures and n − k empty items (with their lengths), the script (34n + 2 bytes, 3 past 16
            // keys) with its length, and the 33-byte control block with its length.
            (164 + 1 + 65 * k + (keys.count - k) + 3 + 34 * keys.count + 3 + 34 + 3) / 4
        case .tr(_, let tree?) where !account.external.tapLeafMiniscripts.isEmpty: Self.tapInputVSize(tree)
        case .tr: 58
        case .sh(.wpkh): 91
        case .pkh: 148
        case .wsh(.multi(let k, let keys, _)), .sh(.wsh(.multi(let k, let keys, _))):
            // 41 non-witness bytes (weight 164), then the witness: item count, the empty dummy, k signatures of up
            // to 72 bytes with their length, and the script (34n + 3 bytes) with its length.
            (164 + 1 + 1 + 73 * k + 1 + 34 * keys.count + 3 + 3) / 4
        case .wsh(.miniscript(let miniscript)), .sh(.wsh(.miniscript(let miniscript))):
            Self.inputVSize(miniscript)
        default: 110
        }
    }

    /// At most: 41 non-witness bytes, the largest satisfaction's items, each up to a 72-byte signature with its
    /// length, and the witness script with its length (an overestimate for the smaller paths).
    static func inputVSize(_ miniscript: Miniscript) -> Int {
        let script = (try? miniscript.script().bytes.count) ?? 3600
        let items = miniscript.maxSatisfactionItems ?? miniscript.keys.count
        return (164 + 1 + 73 * items + script + 3 + 3) / 4
    }

    /// The script path of the costliest leaf of a tree with miniscript leaves (docs/miniscript.md, "Tapscript"): 41
    /// non-witness bytes (weight 164), then the witness: item count, the leaf's largest satisfaction (Bitcoin Core's
    /// witness size: 66 bytes a signature), the leaf script with its length, the control block (33 + 32 per level)
    /// with its length.
    static func tapInputVSize(_ tree: DescriptorTapTree, depth: Int = 0) -> Int {
        switch tree {
        case .branch(let left, let right):
            return max(tapInputVSize(left, depth: depth + 1), tapInputVSize(right, depth: depth + 1))
        case .leaf(let leaf):
            let satisfaction: Int
            let script: Int
            switch leaf {
            case .miniscript(let miniscript):
                satisfaction = miniscript.maxWitnessSize ?? 66 * miniscript.keys.count
                script = (try? miniscript.script().bytes.count) ?? 10_000
            default:
                satisfaction = 66 * leaf.keys.count
                script = 34 * leaf.keys.count + 3
            }
            return (164 + 3 + satisfaction + script + 3 + 33 + 32 * depth + 1 + 3) / 4
        }
    }

    /// Plans paying `recipients` at `feeRate`, from `only` (coin control: frozen coins too, when named) or any
    /// unfrozen coin.
    ///
    /// - Throws: `SpendError`.
    public func plan(
        recipients: [Recipient], feeRate: FeeRate, only: [OutPoint]? = nil, rbf: Bool = true,
        path: PolicyPath? = nil, using generator: inout some RandomNumberGenerator
    ) throws(SpendError) -> SpendPlan {
        guard !recipients.isEmpty else { throw .inconsistent("no recipient") }
        let sendMax = recipients.contains { $0.amount == nil }
        if sendMax && recipients.count > 1 { throw .inconsistent("--max pays one recipient only") }
        for recipient in recipients {
            guard
                recipient.address.network == wallet.network
                    || recipient.address.networksSharingEncoding.contains(wallet.network)
            else { throw .wrongNetwork(address: recipient.address.description, wallet: wallet.network) }
            if let amount = recipient.amount, amount.sats < 546 { throw .dust(amount.btcString + " BTC") }
        }
        let walletID: Int64
        let tip: BlockTip?
        // Automatic selection reads the first `candidateLimit` coins in spend order; a read that stopped there is
        // made again whole when those coins do not pay.
        let limit = only == nil && !sendMax ? candidateLimit : nil
        do {
            walletID = try wallet.requireID()
            tip = try store.syncedTip(walletID: walletID)
        } catch {
            throw .store(error)
        }
        if let plan = try plan(
            recipients: recipients, feeRate: feeRate, only: only, rbf: rbf, path: path, walletID: walletID, tip: tip,
            limit: limit, using: &generator)
        {
            return plan
        }
        // The first coins did not pay: every coin.
        guard
            let plan = try plan(
                recipients: recipients, feeRate: feeRate, only: only, rbf: rbf, path: path, walletID: walletID,
                tip: tip, limit: nil, using: &generator)
        else { throw .inconsistent("coin selection over every coin stopped short") }
        return plan
    }

    /// `plan` over the wallet's first `limit` coins in spend order (every coin when nil); nil when the read stopped
    /// at `limit` coins and those do not pay.
    private func plan(
        recipients: [Recipient], feeRate: FeeRate, only: [OutPoint]?, rbf: Bool, path: PolicyPath?, walletID: Int64,
        tip: BlockTip?, limit: Int?, using generator: inout some RandomNumberGenerator
    ) throws(SpendError) -> SpendPlan? {
        let sendMax = recipients.contains { $0.amount == nil }
        let coins: [CoinRecord]
        do {
            // Selection reads the value columns only; the chosen coins' rows and previous transactions come after.
            coins = try store.coins(walletID: walletID, limit: limit)
        } catch {
            throw .store(error)
        }
        // Fewer coins than the limit: the wallet's every coin was read, and a shortfall is the wallet's.
        let limit = limit.flatMap { coins.count < $0 ? nil : $0 }
        var spendable = coins.filter { utxo in
            guard !utxo.frozen || only?.contains(utxo.outpoint) == true else { return false }
            guard utxo.isCoinbase, let height = utxo.height, let tip else {
                return !utxo.isCoinbase || utxo.height != nil
            }
            return tip.height - height + 1 >= Balance.coinbaseMaturity
        }
        if let only {
            var chosen: [CoinRecord] = []
            for outpoint in only {
                guard let utxo = spendable.first(where: { $0.outpoint == outpoint }) else {
                    throw .unknownUTXO(outpoint.description)
                }
                chosen.append(utxo)
            }
            spendable = chosen
        }
        let vsize = inputVSize
        let candidates = spendable.map { CoinCandidate(outpoint: $0.outpoint, value: $0.value, inputVSize: vsize) }
        let changeRecord: AddressRecord
        do {
            changeRecord = try store.nextUnusedAddress(
                wallet: wallet, keychain: account.change == nil ? .external : .internal, fresh: false)
        } catch {
            throw .store(error)
        }
        let outputsVSize = recipients.reduce(0) { $0 + 9 + $1.address.scriptPubKey.bytes.count }
        let parameters = SelectionParameters(
            feeRate: feeRate, baseVSize: 11 + outputsVSize, changeOutputVSize: 9 + changeRecord.script.bytes.count,
            changeSpendVSize: vsize)
        var outputs: [TxOut] = []
        let result: CoinSelectionResult
        do {
            if sendMax {
                let amount = try CoinSelection.maxSendable(candidates, parameters: parameters)
                outputs = [TxOut(value: amount, scriptPubKey: recipients[0].address.scriptPubKey)]
                result = try CoinSelection.spend(candidates, target: amount, parameters: parameters)
            } else {
                var total: UInt64 = 0
                for recipient in recipients {
                    let amount = recipient.amount ?? .zero
                    total += amount.sats
                    outputs.append(TxOut(value: amount, scriptPubKey: recipient.address.scriptPubKey))
                }
                guard let target = try? Amount(sats: total) else { throw CoinSelectionError.amountOutOfRange }
                result =
                    only == nil
                    ? try CoinSelection.select(
                        from: candidates, target: target, parameters: parameters, using: &generator)
                    : try CoinSelection.spend(candidates, target: target, parameters: parameters)
            }
        } catch CoinSelectionError.insufficientFunds where limit != nil {
            return nil  // short among the first coins read: the caller reads every coin
        } catch let error as CoinSelectionError {
            throw .selection(error)
        } catch {
            throw .inconsistent("\(error)")
        }
        var change: (Int, Int)?
        if let amount = result.change {
            // The change goes to a random position, so that it is not always last.
            let position = Int.random(in: 0...outputs.count, using: &generator)
            outputs.insert(TxOut(value: amount, scriptPubKey: changeRecord.script), at: position)
            change = (position, changeRecord.index)
        }
        // Only the chosen coins' previous transactions are read and parsed (issue 19: `send` over 10,000 UTXOs
        // parsed all 5,000 of the wallet's transactions first).
        let transactions: [Txid: Transaction]
        let byOutpoint: [OutPoint: UTXORecord]
        do {
            transactions = try store.transactions(
                walletID: walletID, txids: Set(result.selected.map(\.outpoint.txid)))
            byOutpoint = try store.utxos(walletID: walletID, outpoints: result.selected.map(\.outpoint))
        } catch {
            throw .store(error)
        }
        var inputs: [PlannedInput] = []
        var sequence: SequenceNumber = rbf ? .replaceByFee : .lockTimeEnabled
        // A timelocked policy path (send --recovery): nSequence is the older() value (BIP68; it also signals RBF).
        if let relative = path?.relativeTimelock { sequence = SequenceNumber(rawValue: relative) }
        for coin in result.selected {
            guard let utxo = byOutpoint[coin.outpoint], let previous = transactions[coin.outpoint.txid]
            else { throw .unknownUTXO(coin.outpoint.description) }
            inputs.append(PlannedInput(utxo: utxo, previousTransaction: previous, sequence: sequence))
        }
        inputs.shuffle(using: &generator)
        // Anti-fee-sniping (Bitcoin Core): the tip height, and one time in ten up to 100 blocks earlier.
        var lockHeight = UInt32(max(0, tip?.height ?? 0))
        if Int.random(in: 0..<10, using: &generator) == 0 {
            lockHeight -= min(lockHeight, UInt32.random(in: 0..<100, using: &generator))
        }
        var lockTime = LockTime(rawValue: lockHeight)
        // An after() path: nLockTime is its value (or the anti-fee-sniping height when that is later, both heights).
        if let absolute = path?.absoluteTimelock {
            let bothHeights = absolute < LockTime.threshold
            lockTime = LockTime(rawValue: bothHeights ? max(absolute, lockHeight) : absolute)
        }
        return SpendPlan(
            inputs: inputs, outputs: outputs, change: change, fee: result.fee, feeRate: feeRate,
            lockTime: lockTime, algorithm: result.algorithm, waste: result.waste)
    }
}
