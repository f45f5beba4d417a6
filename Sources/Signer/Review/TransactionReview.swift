import Bitcoin
import Descriptors
import Foundation

/// The review shown before signing, in the order a careful signer reads it (as SeedSigner does): what leaves, what
/// comes back as change (with the wallet it belongs to), the fee, the inputs, then the warnings; plus what the policy
/// refuses.
public struct TransactionReview: Sendable {
    /// The analysis the review is built on.
    public let analysis: PSBTAnalysis
    /// What the policy refuses; the PSBT is signed only when this is empty.
    public internal(set) var refusals: [SigningRefusal]
    /// Notes shown after the warnings (inputs signed under a widening, origins matched to this seed).
    public internal(set) var notes: [String] = []
    /// The policy applied.
    public let policy: SigningPolicy
    /// When the review was made (the clock a far nLockTime was judged by).
    public let reviewedAt: Date
    /// A name for each account descriptor (script type and account, or the registered wallet), by account index.
    public let accountLabels: [String]
    /// The multisig inputs: who has signed each one (before this vault signs) and how many signatures it lacks.
    public let multisigInputs: [(input: Int, status: MultisigSignatureStatus)]
    /// This vault's master fingerprint, to mark its key among the cosigners.
    public internal(set) var thisVault: Fingerprint?
    /// The registered multisig wallets' names, by account index.
    public internal(set) var multisigWalletNames: [Int: String] = [:]
    /// The registered cosigner names (fingerprint hex → name) of each multisig account.
    public internal(set) var multisigCosignerNames: [Int: [String: String]] = [:]
    /// The inputs of registered miniscript policy wallets: the path the transaction takes and who has signed.
    public internal(set) var policyInputs: [PolicyInputState] = []

    /// The registered multisig wallet input `index` spends from, if any.
    public func multisigWallet(ofInput index: Int) -> String? {
        guard analysis.inputs.indices.contains(index),
            case .ours(let account, _, _) = analysis.inputs[index].ownership
        else { return nil }
        return multisigWalletNames[account]
    }

    /// Reviews `psbt` for this signer's `accounts` under `policy`; `accountLabels` name the accounts in the text.
    ///
    /// Only outputs of the wallet being spent count as change (`policy.changeRule`). `derived`: scripts of the accounts
    /// built from this signer's own derived keys (`PSBTAnalysis`).
    /// - Throws: `PSBTError` when the PSBT's transaction cannot be assembled.
    /// `ownOutputs` are outputs verified as this vault's by other means (its silent-payment change).
    public init(
        _ psbt: PSBT, accounts: [Descriptor], policy: SigningPolicy, accountLabels: [String] = [],
        ownOutputs: [Int: PSBTAnalysis.Ownership] = [:], derived: DerivedScripts = DerivedScripts()
    ) throws(PSBTError) {
        let now = policy.now ?? Date()
        let analysis = try PSBTAnalysis(
            psbt: psbt, accounts: accounts, network: policy.network, changeRule: policy.changeRule, now: now,
            knownOwnOutputs: ownOutputs, derived: derived)
        self.analysis = analysis
        self.reviewedAt = now
        self.policy = policy
        self.accountLabels = accountLabels
        let statuses = MultisigSignatureStatus.statuses(of: psbt)
        self.multisigInputs = psbt.inputs.indices.compactMap { index in statuses[index].map { (index, $0) } }
        var refusals: [SigningRefusal] = []
        let ours = analysis.inputs.filter { if case .ours = $0.ownership { true } else { false } }
        if ours.isEmpty { refusals.append(.nothingToSign) }
        for input in ours {
            let isTaproot: Bool = if case .p2tr = input.scriptPubKey?.template { true } else { false }
            if let type = input.sighashType, !(type == 1 || (isTaproot && type == 0)), !policy.allowNonDefaultSighash {
                refusals.append(.nonDefaultSighash(input: input.index, type: type))
            }
        }
        for input in analysis.inputs where !input.isFinalized {
            if let type = input.sighashType, type & 0x1f == 3, input.index >= analysis.outputs.count {
                refusals.append(.sighashSingleWithoutOutput(input: input.index))
            }
        }
        for warning in analysis.warnings {
            switch warning {
            case .missingPreviousTransaction(let input) where !policy.allowMissingPreviousTransaction:
                if ours.contains(where: { $0.index == input }) {
                    refusals.append(.missingPreviousTransaction(input: input))
                }
            case .utxoMismatch(let input):
                refusals.append(.utxoMismatch(input: input))
            case .networkMismatch(let expected, let found, _):
                refusals.append(.wrongNetwork(expected: expected, found: found))
            case .feeAboveAmountSent(let fee, let sent):
                refusals.append(.feeAboveAmountSent(fee: fee, sent: sent))
            default:
                break
            }
        }
        if let fee = analysis.fee {
            // The rate over the smallest size the transaction can have: foreign inputs' size claims don't count.
            if let rate = analysis.maximumFeeRate, rate > policy.maxFeeRateSatsPerVByte {
                refusals.append(.feeRateTooHigh(satsPerVByte: rate, maximum: policy.maxFeeRateSatsPerVByte))
            }
            if fee > policy.maxFee { refusals.append(.feeTooHigh(fee: fee, maximum: policy.maxFee)) }
        } else {
            refusals.append(.unknownFee)
        }
        self.refusals = refusals
    }

    /// Whether the policy lets this PSBT be signed.
    public var isAcceptable: Bool { refusals.isEmpty }

    /// Adds a refusal once.
    mutating func refuse(_ refusal: SigningRefusal) {
        if !refusals.contains(refusal) { refusals.append(refusal) }
    }

    /// The name of the account an own output or input belongs to.
    public func label(of ownership: PSBTAnalysis.Ownership) -> String? {
        switch ownership {
        case .ours(let account, _, _), .ownOutsideSpentWallet(let account, _, _):
            account < accountLabels.count ? accountLabels[account] : "account descriptor \(account)"
        default: nil
        }
    }

    /// The review as text for the offline screen: every string from outside (wallet and cosigner names, policies)
    /// shown through `DisplayText.show`, and `DisplayText.hiddenCharactersWarning` among the warnings when one held
    /// hidden characters.
    public var text: String { rendered().text }

    /// Whether a string the review shows held hidden characters (terminal controls, direction overrides).
    public var hasHiddenCharacters: Bool { rendered().hidden }

    private func rendered() -> (text: String, hidden: Bool) {
        var hidden = false
        func show(_ text: String) -> String {
            let shown = DisplayText.show(text)
            if shown.hadHiddenCharacters { hidden = true }
            return shown.text
        }
        var lines: [String] = []
        lines.append("Transaction \(analysis.txid)")
        let external = analysis.outputs.filter(\.isExternal)
        lines.append("")
        lines.append("SENDING (\(external.count) destination\(external.count == 1 ? "" : "s")):")
        for output in external {
            let note: String =
                switch output.ownership {
                case .claimedButNotOurs: "  <-- CLAIMS TO BE CHANGE, IS NOT OURS"
                case .ownOutsideSpentWallet(_, let branch, let index):
                    "  <-- THIS VAULT'S KEY, BUT NOT CHANGE OF THE WALLET BEING SPENT: \(label(of: output.ownership) ?? "?"), "
                        + "branch \(branch), index \(index)"
                default: ""
                }
            lines.append(
                "  \(Self.btc(output.amount))  to  \(Self.destination(output))\(show(note))")
        }
        let change = analysis.outputs.filter { !$0.isExternal }
        if !change.isEmpty {
            lines.append("")
            lines.append("CHANGE / OWN ADDRESSES (verified against this vault, wallet being spent):")
            for output in change {
                var placement = ""
                if case .ours(_, let branch, let index) = output.ownership {
                    let wallet = show(label(of: output.ownership) ?? "?")
                    placement = " (\(wallet), \(branch == 1 ? "change" : "receive") branch, index \(index))"
                }
                lines.append("  \(Self.btc(output.amount))  to  \(Self.destination(output))\(placement)")
            }
        }
        lines.append("")
        if let fee = analysis.fee, let rate = analysis.feeRate {
            lines.append(
                "FEE: \(Self.btc(fee))  (\(String(format: "%.1f", rate)) sat/vB, ~\(analysis.estimatedVSize) vB)")
        } else {
            lines.append("FEE: unknown (an input's amount is missing)")
        }
        let ours = analysis.inputs.filter { if case .ours = $0.ownership { true } else { false } }
        lines.append("INPUTS: \(analysis.inputs.count) (\(ours.count) of this vault)")
        let lock = analysis.lockTimeReview
        if let words = lock.words(network: policy.network, now: reviewedAt) { lines.append("LOCK TIME: \(words)") }
        lines.append(
            lock.signalsReplaceByFee
                ? "REPLACEABLE: yes (RBF signalled: the fee can be raised later)"
                : "REPLACEABLE: no (RBF not signalled)")
        if !multisigInputs.isEmpty {
            lines.append("")
            lines.append("MULTISIG SIGNATURES (before this vault signs):")
            for (index, status) in multisigInputs {
                let wallet = multisigWallet(ofInput: index).map { " ('\(show($0))')" } ?? ""
                var names: [String: String] = [:]
                if case .ours(let account, _, _) = analysis.inputs[index].ownership {
                    names = multisigCosignerNames[account] ?? [:]
                }
                let summary = status.summary(thisVault: thisVault) { names[$0.hexString] }
                lines.append("  input \(index)\(wallet): \(summary)")
            }
        }
        if !policyInputs.isEmpty {
            lines.append("")
            lines.append("POLICY PATHS (miniscript, before this vault signs):")
            var shown: Set<String> = []
            for state in policyInputs where shown.insert(state.wallet).inserted {
                lines.append("  '\(show(state.wallet))': \(show(state.policy))")
            }
            for state in policyInputs { lines.append("  \(show(state.text))") }
        }
        let shownNotes = notes.map(show)
        let shownRefusals = refusals.map { show($0.description) }
        var warnings = analysis.warnings.map { show($0.description) }
        if hidden { warnings.append(DisplayText.hiddenCharactersWarning) }
        if !warnings.isEmpty {
            lines.append("")
            lines.append("WARNINGS:")
            for warning in warnings { lines.append("  ! \(warning)") }
        }
        if !notes.isEmpty {
            lines.append("")
            for note in shownNotes { lines.append("note: \(note)") }
        }
        if !refusals.isEmpty {
            lines.append("")
            lines.append("REFUSED:")
            for refusal in shownRefusals { lines.append("  x \(refusal)") }
        }
        return (lines.joined(separator: "\n"), hidden)
    }

    static func destination(_ output: PSBTAnalysis.Output) -> String {
        output.scriptPubKey.bytes.isEmpty
            ? "a silent-payment address (its script is not computed yet; see the note below)"
            : DisplayText.clean(output.address ?? "script " + output.scriptPubKey.hexString)
    }

    static func btc(_ amount: Amount) -> String { "\(amount.btcString) BTC" }
}
