import Bitcoin
import BitcoinCrypto
import Foundation

/// What a PSBT does, worked out for a set of account descriptors: which inputs and outputs are ours (re-derived from
/// the descriptors, never trusting a derivation hint alone), the fee and fee rate, the external payments, the change,
/// and the warnings a reviewer must see.
public struct PSBTAnalysis: Sendable {
    /// Whose an input or output is.
    public enum Ownership: Sendable, Hashable {
        /// Ours: account descriptor `account`, branch `branch` (0 receive, 1 change for `<0;1>`), child `index`.
        case ours(account: Int, branch: Int, index: UInt32)
        /// Not ours.
        case foreign
        /// Claims a derivation of one of our keys, but the script is not what that derivation gives.
        case claimedButNotOurs
        /// Re-derives to one of the accounts, but not to the wallet being spent (another account or script type than
        /// the inputs', or an index far past the inputs'): under a `ChangeRule` an external payment.
        case ownOutsideSpentWallet(account: Int, branch: Int, index: UInt32)
    }

    /// What makes an output change (docs/architecture.md section 5): it re-derives to an account one of the inputs spends from,
    /// on its receive or change branch, at most `maxIndexGap` past the highest index those inputs use.
    public struct ChangeRule: Sendable, Equatable {
        /// How far past the highest input index of the same account an own output may be (default 10,000).
        public var maxIndexGap: UInt32
        public init(maxIndexGap: UInt32 = 10_000) { self.maxIndexGap = maxIndexGap }
    }

    /// One input.
    public struct Input: Sendable {
        public let index: Int
        public let outpoint: OutPoint
        public let amount: Amount?
        public let scriptPubKey: Script?
        public let address: String?
        public let ownership: Ownership
        public let sighashType: UInt32?
        public let isFinalized: Bool
    }

    /// One output.
    public struct Output: Sendable {
        public let index: Int
        public let amount: Amount
        public let scriptPubKey: Script
        public let address: String?
        public let ownership: Ownership
        /// Whether this is change: ours on a change branch (or any branch but the first of a multipath account).
        public var isChange: Bool { if case .ours(_, let branch, _) = ownership { branch > 0 } else { false } }
        /// Whether the output goes to someone else (including outputs that only claim to be ours).
        public var isExternal: Bool { if case .ours = ownership { false } else { true } }
    }

    public let txid: Txid
    public let version: Int32
    public let locktime: UInt32
    /// The lock time and replace-by-fee signal as reviewed (`LockTimeReview`).
    public let lockTimeReview: LockTimeReview
    public let inputs: [Input]
    public let outputs: [Output]
    /// Inputs minus outputs, when every input's amount is known.
    public let fee: Amount?
    /// The estimated virtual size once finalized.
    public let estimatedVSize: Int
    /// The smallest virtual size the transaction can have: the inputs that are not ours counted at their minimum (an
    /// outpoint, an empty scriptSig, one empty witness), since their size is whatever their owners finally give them.
    public let minimumVSize: Int
    public let warnings: [PSBTWarning]

    /// The fee rate in sat/vB, when the fee is known.
    public var feeRate: Double? { fee.map { Double($0.sats) / Double(max(estimatedVSize, 1)) } }

    /// The highest fee rate the transaction can end up paying, in sat/vB: the fee over `minimumVSize`.
    ///
    /// A fee cap checks this one, so that a foreign input claiming a large script cannot make a high fee look cheap.
    public var maximumFeeRate: Double? { fee.map { Double($0.sats) / Double(max(minimumVSize, 1)) } }

    /// The sum of outputs that leave the accounts.
    public var amountSent: Amount { (try? Amount.sum(outputs.filter(\.isExternal).map(\.amount))) ?? .zero }

    /// The sum of change outputs.
    public var changeAmount: Amount { (try? Amount.sum(outputs.filter(\.isChange).map(\.amount))) ?? .zero }

    /// Analyses `psbt` for `accounts` on `network` (addresses are shown for that network).
    ///
    /// - Throws: `PSBTError` when the unsigned transaction can't be assembled (v2 locktime conflict).
    /// With a `changeRule`, an output counts as ours only when it belongs to the wallet being spent; any other output
    /// of the accounts is `.ownOutsideSpentWallet`, and any output claiming a key of the accounts' fingerprints that
    /// does not re-derive to the wallet being spent is warned about; both are external payments.
    ///
    /// `now` is the clock a far nLockTime is judged by (the chain's height is estimated from it on mainnet).
    /// `knownOwnOutputs` gives outputs whose ownership the caller verified by other means (a silent-payment change
    /// output re-derived from the seed's BIP352 keys); they are taken as given.
    /// `derived` holds scripts of the accounts built from keys the caller derived itself (a signer's own keys), taken
    /// instead of deriving those children again from the descriptors.
    public init(
        psbt: PSBT, accounts: [Descriptor], network: Network, changeRule: ChangeRule? = nil, now: Date = Date(),
        knownOwnOutputs: [Int: Ownership] = [:], derived: DerivedScripts = DerivedScripts()
    ) throws(PSBTError) {
        let transaction = try psbt.unsignedTransaction()
        var warnings: [PSBTWarning] = []
        var inputs: [Input] = []
        var utxos: [TxOut?] = []
        var inputTotal: Amount? = .zero
        for (index, input) in psbt.inputs.enumerated() {
            let outpoint = transaction.inputs[index].previousOutput
            let fromPrevious = input.nonWitnessUTXO.flatMap { previous in
                Int(outpoint.vout) < previous.outputs.count ? previous.outputs[Int(outpoint.vout)] : nil
            }
            let witnessUTXO = input.witnessUTXO
            if let fromPrevious, let witnessUTXO, fromPrevious != witnessUTXO {
                warnings.append(.utxoMismatch(input: index))
            }
            let utxo = fromPrevious ?? witnessUTXO
            utxos.append(utxo)
            if utxo == nil { warnings.append(.missingUTXO(input: index)) }
            if let utxo, fromPrevious == nil, Self.isSegwitV0(utxo.scriptPubKey, redeem: input.redeemScript) {
                warnings.append(.missingPreviousTransaction(input: index))
            }
            if let amount = utxo?.value, let total = inputTotal {
                inputTotal = try? total.adding(amount)
            } else {
                inputTotal = nil
            }
            let claimed = input.bip32Derivations.map(\.origin) + input.tapBIP32Derivations.map(\.origin)
            let ownership =
                utxo.map {
                    Self.ownership(of: $0.scriptPubKey, claimed: claimed, accounts: accounts, derived: derived)
                } ?? .foreign
            switch ownership {
            case .foreign: warnings.append(.foreignInput(input: index))
            case .claimedButNotOurs: warnings.append(.inputMismatch(input: index))
            case .ours, .ownOutsideSpentWallet: break
            }
            let isTaproot: Bool = if case .p2tr = utxo?.scriptPubKey.template { true } else { false }
            if let type = input.sighashType, type != (isTaproot ? 0 : 1), !(isTaproot && type == 1) {
                warnings.append(.nonDefaultSighash(input: index, type: type))
            }
            inputs.append(
                Input(
                    index: index, outpoint: outpoint, amount: utxo?.value, scriptPubKey: utxo?.scriptPubKey,
                    address: utxo.flatMap { try? Address(scriptPubKey: $0.scriptPubKey, network: network).description },
                    ownership: ownership, sighashType: input.sighashType, isFinalized: input.isFinalized))
        }
        var highestInputIndex: [Int: UInt32] = [:]
        for input in inputs {
            if case .ours(let account, _, let index) = input.ownership {
                highestInputIndex[account] = max(highestInputIndex[account] ?? 0, index)
            }
        }
        let ownFingerprints = Set(accounts.flatMap { $0.expression.keys.compactMap(\.origin?.fingerprint) })
        var outputs: [Output] = []
        for (index, txOut) in transaction.outputs.enumerated() {
            let psbtOutput = psbt.outputs[index]
            let claimed = psbtOutput.bip32Derivations.map(\.origin) + psbtOutput.tapBIP32Derivations.map(\.origin)
            var ownership = Self.ownership(
                of: txOut.scriptPubKey, claimed: claimed, accounts: accounts, derived: derived)
            if ownership == .claimedButNotOurs { warnings.append(.changeMismatch(output: index)) }
            if let known = knownOwnOutputs[index] {
                ownership = known
            } else if let changeRule {
                if case .ours(let account, let branch, let childIndex) = ownership {
                    if let highest = highestInputIndex[account] {
                        let limit = UInt64(highest) + UInt64(changeRule.maxIndexGap)
                        if UInt64(childIndex) > limit {
                            ownership = .ownOutsideSpentWallet(account: account, branch: branch, index: childIndex)
                            warnings.append(.ownOutputFarIndex(output: index, index: childIndex, limit: limit))
                        }
                    } else {
                        ownership = .ownOutsideSpentWallet(account: account, branch: branch, index: childIndex)
                        warnings.append(.ownOutputOtherWallet(output: index, path: Self.claimedPath(claimed)))
                    }
                } else if ownership == .foreign,
                    let origin = claimed.first(where: { ownFingerprints.contains($0.fingerprint) })
                {
                    warnings.append(.ownOutputOtherWallet(output: index, path: origin.description))
                }
            }
            switch txOut.scriptPubKey.template {
            case .nullData: warnings.append(.opReturn(output: index))
            case .witnessProgram(let program) where program.version >= 2 || program.program != [0x4e, 0x73]:
                warnings.append(.unknownWitnessVersion(output: index, program.version))
            default: break
            }
            outputs.append(
                Output(
                    index: index, amount: txOut.value, scriptPubKey: txOut.scriptPubKey,
                    address: try? Address(scriptPubKey: txOut.scriptPubKey, network: network).description,
                    ownership: ownership))
        }
        let outputTotal = (try? Amount.sum(transaction.outputs.map(\.value))) ?? .zero
        let fee = inputTotal.flatMap { try? $0.subtracting(outputTotal) }
        let vsize = VSizeEstimator.vsize(transaction: transaction, inputs: psbt.inputs, utxos: utxos)
        let foreign = inputs.map { if case .ours = $0.ownership { false } else { true } }
        let minimumVSize =
            foreign.contains(true)
            ? VSizeEstimator.vsize(transaction: transaction, inputs: psbt.inputs, utxos: utxos, minimal: foreign)
            : vsize

        if let found = Self.networkHint(psbt), found.network.isMainnet != network.isMainnet {
            warnings.append(.networkMismatch(expected: network, found: found.network, detail: found.detail))
        }
        if ![1, 2].contains(transaction.version) { warnings.append(.unusualVersion(transaction.version)) }
        let locktime = transaction.lockTime.rawValue
        let lockTimeReview = LockTimeReview(
            lockTime: locktime, sequences: transaction.inputs.map(\.sequence.rawValue))
        if let warning = lockTimeReview.warning(network: network, now: now) { warnings.append(warning) }

        self.txid = transaction.txid
        self.version = transaction.version
        self.locktime = locktime
        self.lockTimeReview = lockTimeReview
        self.inputs = inputs
        self.outputs = outputs
        self.fee = fee
        self.estimatedVSize = vsize
        self.minimumVSize = minimumVSize
        let sent = (try? Amount.sum(outputs.filter(\.isExternal).map(\.amount))) ?? .zero
        if let fee, fee > sent, sent > .zero { warnings.append(.feeAboveAmountSent(fee: fee, sent: sent)) }
        if let fee, Double(fee.sats) / Double(max(vsize, 1)) > 1000 {
            warnings.append(.highFeeRate(satsPerVByte: Double(fee.sats) / Double(max(vsize, 1))))
        }
        self.warnings = warnings
    }

    static func isSegwitV0(_ scriptPubKey: Script, redeem: Script?) -> Bool {
        var inner = scriptPubKey
        if case .p2sh = inner.template, let redeem { inner = redeem }
        switch inner.template {
        case .p2wpkh, .p2wsh: return true
        default: return false
        }
    }

    static func claimedPath(_ claimed: [KeyOrigin]) -> String {
        claimed.first.map(\.description) ?? "?"
    }

    /// Finds a claimed key origin in the accounts, then re-derives the script there (or takes it from `derived`) and
    /// compares.
    static func ownership(
        of script: Script, claimed: [KeyOrigin], accounts: [Descriptor], derived: DerivedScripts = DerivedScripts()
    ) -> Ownership {
        var claimsOurs = false
        for origin in claimed {
            guard let last = origin.path.components.last, !last.isHardened else { continue }
            let index = last.rawValue
            for (accountIndex, account) in accounts.enumerated() {
                for branch in 0..<account.multipathCount {
                    let matchesKey = account.expression.keys.contains {
                        $0.keyOrigin(at: index, path: branch) == origin
                    }
                    guard matchesKey else { continue }
                    claimsOurs = true
                    if let derived = derived.script(account: accountIndex, branch: branch, index: index)
                        ?? (try? account.scriptPubKey(at: index, path: branch)), derived == script
                    {
                        return .ours(account: accountIndex, branch: branch, index: index)
                    }
                }
            }
        }
        return claimsOurs ? .claimedButNotOurs : .foreign
    }

    /// The network the PSBT's global xpubs or BIP44-style derivation paths point to, if any.
    public static func networkHint(_ psbt: PSBT) -> (network: Network, detail: String)? {
        for entry in psbt.global.entries(PSBTKeyType.Global.xpub) where entry.keyData.count >= 4 {
            let version = entry.keyData.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if version == Network.main.xpubVersion { return (.main, "global xpub is a mainnet key") }
            if version == Network.test.xpubVersion { return (.test, "global xpub is a testnet key") }
        }
        var origins: [KeyOrigin] = []
        for input in psbt.inputs {
            origins += input.bip32Derivations.map(\.origin)
            origins += input.tapBIP32Derivations.map(\.origin)
        }
        for output in psbt.outputs {
            origins += output.bip32Derivations.map(\.origin)
            origins += output.tapBIP32Derivations.map(\.origin)
        }
        for origin in origins {
            let components = origin.path.components
            guard components.count >= 2, components[0].isHardened,
                [44, 45, 48, 49, 84, 86].contains(components[0].index), components[1].isHardened
            else { continue }
            switch components[1].index {
            case 0: return (.main, "derivation path \(origin.path) uses coin type 0")
            case 1: return (.test, "derivation path \(origin.path) uses coin type 1")
            default: continue
            }
        }
        return nil
    }
}
