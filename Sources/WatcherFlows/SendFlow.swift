import Bitcoin
import ChainCore
import Foundation
import SignToContract
import SilentPayments
import Watcher

/// What `send` is asked to do, its options parsed (addresses are checked against the wallet's network here).
public struct SendRequest: Sendable {
    /// One payment: the address as given, and the amount (nil for the single "send everything" recipient).
    public struct Payment: Sendable {
        public var address: String
        public var amount: Amount?

        public init(address: String, amount: Amount?) {
            self.address = address
            self.amount = amount
        }
    }

    /// How the fee rate is chosen.
    public enum Rate: Sendable {
        /// A rate given by the user.
        case fixed(FeeRate)
        /// The node's estimate for confirming within this many blocks.
        case target(blocks: Int)
    }

    public var payments: [Payment]
    public var rate: Rate
    /// Coin control: spend exactly these coins (nil: any unfrozen coin).
    public var coins: [OutPoint]?
    public var rbf: Bool
    /// Spend on the timelocked (recovery) path of a miniscript policy wallet.
    public var recovery: Bool
    /// With `recovery`: the master fingerprints (hex) of the keys that will sign.
    public var signers: [String]?
    /// Plan only: no PSBT is made or kept.
    public var dryRun: Bool
    /// Anti-exfil signing: host commitments on every ECDSA input, the entropy kept in the data directory.
    public var antiExfil = false

    public init(
        payments: [Payment], rate: Rate, coins: [OutPoint]? = nil, rbf: Bool = true, recovery: Bool = false,
        signers: [String]? = nil, dryRun: Bool = false
    ) {
        self.payments = payments
        self.rate = rate
        self.coins = coins
        self.rbf = rbf
        self.recovery = recovery
        self.signers = signers
        self.dryRun = dryRun
    }
}

/// What `send` made: the plan, the unsigned PSBT (kept in the data directory to combine with the signer's answer),
/// the summary the user checks, and for a recovery spend from when the node accepts it.
public struct SendReport: Sendable {
    public let plan: SpendPlan
    /// The unsigned PSBT; nil for a dry run.
    public let psbt: PSBT?
    public let summary: TransactionSummary
    public let recovery: RecoveryValidity?
    public let rbf: Bool
    public let network: Network
    /// The silent-payment addresses paid, by the placeholder script the plan carries for each.
    public var silentPayments: [Script: SilentPaymentAddress] = [:]
    /// Whether an output pays a silent-payment address (its script, and so the txid, is the signer's to compute).
    public var paysSilentPayment: Bool { !silentPayments.isEmpty }

    /// The stderr lines after the PSBT was written.
    public var lines: [String] {
        let tx = plan.transaction
        let provisional =
            paysSilentPayment
            ? ["(the transaction id changes once the signer computes the silent-payment output's script)"] : []
        return [
            "unsigned transaction \(tx.txid.hexString): \(plan.inputs.count) input(s), \(plan.algorithm.displayName)"
        ]
            + provisional + summary.lines + (recovery.map { [$0.json.text] } ?? [])
    }

    /// The stdout lines of a dry run: the plan's inputs, fee and outputs.
    public var planLines: [String] {
        ["inputs: \(plan.inputs.count), fee \(plan.fee.btcString) BTC (\(plan.feeRate)), \(plan.algorithm.displayName)"]
            + plan.outputs.enumerated().map { i, output in
                let address =
                    summary.outputs.indices.contains(i)
                    ? summary.outputs[i].address
                    : (try? Address(scriptPubKey: output.scriptPubKey, network: network))?.description
                        ?? output.scriptPubKey.hexString
                return "  \(address)  \(output.value.btcString) BTC" + (plan.change?.position == i ? "  (change)" : "")
            }
    }

    /// `send --json`, with the files the PSBT was written to.
    public func json(written: [String]) -> SendJSON {
        let tx = plan.transaction
        return SendJSON(
            summary: summary.json, txid: tx.txid.hexString, psbt: psbt?.base64String ?? "", written: written,
            inputs: plan.inputs.map {
                SpentCoinJSON(outpoint: $0.utxo.outpoint.description, value: $0.utxo.value.sats)
            },
            changeIndex: plan.change?.index, algorithm: plan.algorithm.rawValue, locktime: Int(plan.lockTime.rawValue),
            rbf: rbf, recovery: recovery?.json)
    }

    /// `send --dry-run --json`.
    public var planJSON: SendPlanJSON {
        let tx = plan.transaction
        return SendPlanJSON(
            txid: tx.txid.hexString, fee: plan.fee.sats, feeRateSatPerKvb: plan.feeRate.satsPerKVB,
            algorithm: plan.algorithm.rawValue, waste: plan.waste, locktime: Int(plan.lockTime.rawValue), rbf: rbf,
            inputs: plan.inputs.map {
                SpentCoinJSON(outpoint: $0.utxo.outpoint.description, value: $0.utxo.value.sats)
            },
            outputs: plan.outputs.enumerated().map { i, o in
                // A silent-payment output's script is the signer's to compute: null here, with the address.
                let silent = silentPayments[o.scriptPubKey]
                return .init(
                    script: silent == nil ? o.scriptPubKey.hexString : nil, value: o.value.sats,
                    change: plan.change?.position == i, silentPayment: silent?.encoded)
            },
            unsignedTx: tx.serialized().hexString)
    }
}

/// `send`: plans a payment from the wallet (coin selection, change, locktime, RBF, a recovery path), makes the
/// unsigned PSBT and keeps it in the data directory.
public struct SendFlow: Sendable {
    let store: Store
    let wallet: WalletRecord

    public init(store: Store, wallet: WalletRecord) {
        self.store = store
        self.wallet = wallet
    }

    /// Runs `request`; `feeEstimate` is asked for the node's rate only when the request names a block target.
    ///
    /// - Throws: `PSBTFlowError`, `SpendError`, `StoreError`, `PSBTError`, or what `feeEstimate` throws.
    public func run(
        _ request: SendRequest, feeEstimate: (Int) async throws -> FeeRate,
        using generator: inout some RandomNumberGenerator
    ) async throws -> SendReport {
        // Silent-payment addresses (BIP352) are planned with a placeholder taproot output of the same size; the
        // PSBT then names the address instead of a script (BIP375), which the signer computes.
        var silent: [Script: SilentPaymentAddress] = [:]
        let recipients = try request.payments.map { payment in
            if SilentPaymentAddress.looksLike(payment.address) {
                let (placeholder, address) = try silentPayment(payment.address, number: silent.count)
                silent[placeholder.scriptPubKey] = address
                return Recipient(address: placeholder, amount: payment.amount)
            }
            return Recipient(address: try address(payment.address), amount: payment.amount)
        }
        try BIP352.checkGroupSizes(Array(silent.values))
        let rate: FeeRate
        switch request.rate {
        case .fixed(let fixed): rate = fixed
        case .target(let blocks): rate = try await feeEstimate(blocks)
        }
        let path = request.recovery ? try Self.recoveryPath(of: Account(record: wallet), signers: request.signers) : nil
        let planner = try SpendPlanner(store: store, wallet: wallet)
        let plan = try planner.plan(
            recipients: recipients, feeRate: rate, only: request.coins, rbf: request.rbf, path: path, using: &generator)
        let tip = try path.map { _ in try store.syncedTip(walletID: wallet.requireID())?.height }
        let validity = path.map { RecoveryValidity(path: $0, plan: plan, tipHeight: tip ?? nil) }
        var psbt: PSBT?
        if !request.dryRun {
            var unsigned = try plan.psbt(account: planner.account)
            if !silent.isEmpty { unsigned = try Self.silentPaymentPSBT(unsigned, paying: silent) }
            if request.antiExfil { try AntiExfilKeeper(store: store).save(try AntiExfilSession.begin(&unsigned)) }
            try PSBTArchive(store: store).save(unsigned)
            psbt = unsigned
        }
        let change: Set<Script> = plan.change.map { [plan.outputs[$0.position].scriptPubKey] } ?? []
        let summary = TransactionSummary(
            plan.transaction, fee: plan.fee, vsize: planner.estimatedVSize(of: plan), network: wallet.network,
            own: change, names: silent.mapValues { "\($0.encoded) (silent payment)" })
        var report = SendReport(
            plan: plan, psbt: psbt, summary: summary, recovery: validity, rbf: request.rbf, network: wallet.network)
        report.silentPayments = silent
        return report
    }

    /// A silent-payment address checked against the wallet's network, and the placeholder taproot address the plan
    /// pays instead (a point from its spend key, distinct for each recipient; never in the PSBT).
    func silentPayment(_ text: String, number: Int) throws -> (placeholder: Address, address: SilentPaymentAddress) {
        let address: SilentPaymentAddress
        do { address = try SilentPaymentAddress(text, network: wallet.network) } catch SilentPaymentError.wrongNetwork {
            throw SpendError.wrongNetwork(address: text, wallet: wallet.network)
        } catch {
            throw PSBTFlowError.invalidAddress(text, reason: "\(error)")
        }
        return (try Self.placeholder(for: address, number: number, network: wallet.network), address)
    }

    /// The placeholder taproot address of the `number`th silent-payment recipient: its spend key tweaked by
    /// number + 1 (four bytes, so recipients past 255 never share one).
    static func placeholder(for address: SilentPaymentAddress, number: Int, network: Network) throws -> Address {
        let n = UInt32(number + 1)
        let tweak =
            [UInt8](repeating: 0, count: 28) + [
                UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF),
            ]
        let point = try address.spendKey.adding(tweak: tweak)
        return Address(.witness(try WitnessProgram(version: 1, program: point.xOnly.key.bytes)), network: network)
    }

    /// The PSBT of a plan paying silent-payment addresses (BIP375): version 2, each placeholder output's script
    /// replaced by PSBT_OUT_SP_V0_INFO, every input one BIP352 counts (no segwit v2+ input, no input it skips).
    ///
    /// - Throws: `SilentPaymentError.forbiddenInput` naming a coin that cannot pay a silent payment.
    static func silentPaymentPSBT(_ psbt: PSBT, paying silent: [Script: SilentPaymentAddress]) throws -> PSBT {
        var result = try psbt.convertedToVersion2()
        for index in result.outputs.indices {
            guard let script = result.outputs[index].script, let address = silent[script] else { continue }
            result.outputs[index].map.remove(PSBTKeyType.Output.script)
            result.outputs[index].map.set(PSBTKeyType.Output.spV0Info, value: address.psbtInfo)
        }
        for index in result.inputs.indices {
            if let program = BIP375.spentScript(result, input: index)?.witnessProgram, program.version >= 2 {
                throw SilentPaymentError.forbiddenInput(index: index, reason: "it is a segwit v\(program.version) coin")
            }
            guard case .eligible = try BIP375.inputKind(result, input: index) else {
                throw SilentPaymentError.forbiddenInput(
                    index: index,
                    reason: "BIP352 does not count this kind of coin (only P2PKH, P2WPKH, P2SH-P2WPKH and taproot "
                        + "key-path coins can pay a silent payment); pay from a single-key wallet")
            }
        }
        return try PSBT(serialized: result.serialized())
    }

    /// The address, checked against the wallet's network.
    func address(_ text: String) throws -> Address {
        do {
            return try Address(string: text, network: wallet.network)
        } catch AddressError.wrongNetwork {
            throw SpendError.wrongNetwork(address: text, wallet: wallet.network)
        } catch {
            throw PSBTFlowError.invalidAddress(text, reason: "\(error)")
        }
    }

    /// The timelocked path a recovery spend takes: the one `signers` (fingerprints) can sign, else the fewest keys
    /// that spend only with a timelock (`PolicyPath.recovery`), in a `wsh` miniscript or a `tr()` tree with miniscript
    /// leaves.
    ///
    /// - Throws: `PSBTFlowError.noRecoveryPath` for a wallet without such a policy; `SpendError` from the choice.
    public static func recoveryPath(of account: Account, signers: [String]?) throws -> PolicyPath {
        let external = account.external
        if let miniscript = external.miniscript {
            return try PolicyPath.recovery(of: miniscript, fingerprints: signers)
        }
        if case .tr(_, let tree?) = external.expression, !external.tapLeafMiniscripts.isEmpty {
            return try PolicyPath.recovery(ofTree: tree, fingerprints: signers)
        }
        throw PSBTFlowError.noRecoveryPath
    }
}

extension SpendPlanner {
    /// The virtual size of `plan` once signed: the unsigned transaction, whose inputs count 41 bytes each, plus each
    /// input's signed size (`inputVSize`) beyond those 41.
    public func estimatedVSize(of plan: SpendPlan) -> Int {
        plan.transaction.vsize + plan.inputs.count * (inputVSize - 41)
    }
}

/// A recovery spend's path and from when the node accepts it.
public struct RecoveryValidity: Sendable {
    public let path: PolicyPath
    public let sequence: UInt32
    public let lockTime: UInt32
    /// The first tip height at which the node accepts the transaction; nil when that cannot be told in blocks.
    public let validFromHeight: Int?
    /// The synced tip, when the wallet was synced.
    public let tipHeight: Int?

    public init(path: PolicyPath, plan: SpendPlan, tipHeight: Int?) {
        self.path = path
        sequence = plan.transaction.inputs.first?.sequence.rawValue ?? 0
        lockTime = plan.lockTime.rawValue
        validFromHeight = Self.validFrom(path: path, coinHeights: plan.inputs.map(\.utxo.height), lockTime: lockTime)
        self.tipHeight = tipHeight
    }

    /// The height from which every coin may be spent on `path` (the latest of theirs); nil when one cannot be told in
    /// blocks (an unconfirmed coin, a time-based lock).
    public static func validFrom(path: PolicyPath, coinHeights: [Int?], lockTime: UInt32) -> Int? {
        var from = 0
        for height in coinHeights {
            guard let valid = path.validFromTip(coinHeight: height, lockTime: lockTime) else { return nil }
            from = max(from, valid)
        }
        return from
    }

    public var json: RecoveryJSON {
        RecoveryJSON(
            leaf: path.leaf, signers: path.signers, sequence: Int(sequence), locktime: Int(lockTime),
            relativeTimelock: path.relativeTimelock.map(Int.init),
            absoluteTimelock: path.absoluteTimelock.map(Int.init),
            validFromHeight: validFromHeight, tipHeight: tipHeight)
    }
}
