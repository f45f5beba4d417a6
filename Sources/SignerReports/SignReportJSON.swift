import Bitcoin
import Codecs
import Descriptors
import Signer

/// `sign --json`: the decision, and what was written when signed.
public struct SignOutput: Encodable, Sendable {
    struct Output: Encodable, Sendable {
        let index: Int
        let address: String?
        let amount: UInt64
        let external: Bool
        let change: Bool
        /// The wallet of an own output (script type and account, or the registered multisig), also for an own key
        /// outside the wallet being spent (then `external` is true).
        let wallet: String?
        let branch: Int?
        let derivationIndex: UInt32?
        /// Whether the wallet's name held hidden characters (the data is given as it is).
        let hiddenCharacters: Bool
    }
    let verdict: String
    let txid: String
    let fee: UInt64?
    let feeRate: Double?
    /// nLockTime: `{"height": N}`, `{"time": T}` or null (docs/signer.md, "The review").
    let locktime: LockTimeJSON?
    /// Whether an input signals replace-by-fee.
    let rbf: Bool
    let sent: UInt64
    let change: UInt64
    let outputs: [Output]
    let warnings: [String]
    let refusals: [String]
    let signedInputs: [Int]
    let approvedInputs: [Int]
    /// With `"verdict": "shares_added"`: the inputs whose silent-payment share another signer must still add.
    let pendingShares: [Int]
    /// Each multisig input's signatures: after this vault's when signed, as received when refused.
    public var multisig: [MultisigInput]
    /// Each input of a miniscript policy wallet: the path and who signed before this vault (absent when none).
    var policy: [PolicyInput]
    public var complete: Bool?
    public var psbt: String?
    /// The answer to a Chance `multisig:` text.
    public var multisigText: String?
    public var written: [String]?
    /// Whether a name or policy the review shows held hidden characters (escaped on the screen).
    let hiddenCharacters: Bool
    public var transaction: String?
    /// Anti-exfil (docs/signer.md): "commitments" for a first round (no signature), "signed" for the second; absent
    /// for an ordinary PSBT.
    public var antiExfil: String?

    /// The object of `decision`: signed (`signed` lists the inputs) or refused (nil).
    public init(_ decision: SigningDecision, signed: [Int]?) {
        let review = decision.review
        let analysis = review.analysis
        // "shares_added": a silent payment's ECDH shares were added but other signers' are missing, nothing signed.
        verdict = signed == nil ? "refused" : decision.pendingShares.isEmpty ? "signed" : "shares_added"
        pendingShares = signed == nil ? [] : decision.pendingShares
        txid = analysis.txid.hexString
        fee = analysis.fee?.sats
        feeRate = analysis.feeRate.map { ($0 * 100).rounded() / 100 }
        locktime = LockTimeJSON(analysis.lockTimeReview.lock)
        rbf = analysis.lockTimeReview.signalsReplaceByFee
        sent = analysis.amountSent.sats
        change = analysis.changeAmount.sats
        outputs = analysis.outputs.map { output in
            var branch: Int?
            var index: UInt32?
            switch output.ownership {
            case .ours(_, let b, let i), .ownOutsideSpentWallet(_, let b, let i): (branch, index) = (b, i)
            default: break
            }
            let wallet = review.label(of: output.ownership)
            return Output(
                index: output.index, address: output.address, amount: output.amount.sats,
                external: output.isExternal, change: output.isChange, wallet: wallet, branch: branch,
                derivationIndex: index, hiddenCharacters: wallet.map { DisplayText.hasHiddenCharacters($0) } ?? false)
        }
        let hidden = review.hasHiddenCharacters
        warnings =
            analysis.warnings.map { DisplayText.clean($0.description) }
            + (hidden ? [DisplayText.hiddenCharactersWarning] : [])
        hiddenCharacters = hidden
        refusals = signed == nil ? decision.refusals.map(\.description) : []
        signedInputs = signed ?? []
        approvedInputs = decision.approvedInputs
        multisig = Self.multisig(decision, psbt: decision.psbt)
        policy = review.policyInputs.map(PolicyInput.init)
    }

    /// One input of a miniscript policy wallet (docs/miniscript.md).
    struct PolicyInput: Encodable, Sendable {
        let input: Int
        let wallet: String
        let policy: String
        let path: String
        let enabledTimelocks: [String]
        let signedBy: [String]
        let notSigned: [String]
        let completeWithThisVault: Bool
        let text: String
        /// The wallet's registered cosigner names (`multisig register --cosigner`), by fingerprint; empty without.
        let cosigners: [MultisigWalletReport.CosignerNameJSON]
        /// Whether the wallet's name or policy held hidden characters (given as they are; escaped on the screen).
        let hiddenCharacters: Bool?

        init(_ state: PolicyInputState) {
            cosigners = state.cosignerNames.sorted { $0.key < $1.key }.map {
                MultisigWalletReport.CosignerNameJSON(fingerprint: $0.key, name: $0.value)
            }
            input = state.input
            wallet = state.wallet
            policy = state.policy
            path = state.isRecovery ? "recovery" : "primary"
            enabledTimelocks = state.enabledTimelocks
            signedBy = state.signedBy
            notSigned = state.notSigned
            completeWithThisVault = state.completedPath != nil
            text = state.text
            let hidden = [state.wallet, state.policy, state.text].contains { DisplayText.hasHiddenCharacters($0) }
            hiddenCharacters = hidden ? true : nil
        }

        enum CodingKeys: String, CodingKey {
            case input, wallet, policy, path, text, cosigners
            case hiddenCharacters = "hidden_characters"
            case enabledTimelocks = "enabled_timelocks"
            case signedBy = "signed_by"
            case notSigned = "not_signed"
            case completeWithThisVault = "complete_with_this_vault"
        }
    }

    /// One multisig input's signature state.
    public struct MultisigInput: Encodable, Sendable {
        let input: Int
        let signatures: MultisigStatusJSON
    }

    /// Each multisig input's signatures in `psbt`, with the registered wallet the review found for it.
    public static func multisig(_ decision: SigningDecision, psbt: PSBT) -> [MultisigInput] {
        let statuses = MultisigSignatureStatus.statuses(of: psbt)
        return psbt.inputs.indices.compactMap { index in
            statuses[index].map {
                MultisigInput(
                    input: index,
                    signatures: MultisigStatusJSON($0, wallet: decision.review.multisigWallet(ofInput: index)))
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case verdict, txid, fee
        case feeRate = "fee_rate"
        case locktime, rbf
        case sent, change, outputs, warnings, refusals
        case signedInputs = "signed_inputs"
        case approvedInputs = "approved_inputs"
        case pendingShares = "pending_share_inputs"
        case multisig, policy, complete, psbt, written, transaction
        case multisigText = "multisig_text"
        case hiddenCharacters = "hidden_characters"
        case antiExfil = "anti_exfil"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(txid, forKey: .txid)
        try container.encode(fee, forKey: .fee)  // null when unknown
        try container.encode(feeRate, forKey: .feeRate)
        try container.encode(locktime, forKey: .locktime)  // null when none
        try container.encode(rbf, forKey: .rbf)
        try container.encode(sent, forKey: .sent)
        try container.encode(change, forKey: .change)
        try container.encode(outputs, forKey: .outputs)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(refusals, forKey: .refusals)
        if hiddenCharacters { try container.encode(true, forKey: .hiddenCharacters) }
        try container.encode(signedInputs, forKey: .signedInputs)
        try container.encode(approvedInputs, forKey: .approvedInputs)
        if !pendingShares.isEmpty { try container.encode(pendingShares, forKey: .pendingShares) }
        try container.encode(multisig, forKey: .multisig)
        if !policy.isEmpty { try container.encode(policy, forKey: .policy) }
        try container.encodeIfPresent(complete, forKey: .complete)
        try container.encodeIfPresent(psbt, forKey: .psbt)
        try container.encodeIfPresent(multisigText, forKey: .multisigText)
        try container.encodeIfPresent(written, forKey: .written)
        if psbt != nil || multisigText != nil { try container.encode(transaction, forKey: .transaction) }
        try container.encodeIfPresent(antiExfil, forKey: .antiExfil)
    }
}

/// A transaction's nLockTime in `sign --json`: `{"height": N}` or `{"time": T}` (seconds since 1970).
struct LockTimeJSON: Encodable, Sendable {
    var height: UInt32?
    var time: UInt32?

    init?(_ lock: LockTimeReview.Lock) {
        switch lock {
        case .none: return nil
        case .height(let n): height = n
        case .time(let t): time = t
        }
    }
}

extension SignOutput.Output {
    enum CodingKeys: String, CodingKey {
        case index, address, amount, external, change, wallet, branch
        case derivationIndex = "derivation_index"
        case hiddenCharacters = "hidden_characters"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(address, forKey: .address)
        try container.encode(amount, forKey: .amount)
        try container.encode(external, forKey: .external)
        try container.encode(change, forKey: .change)
        try container.encodeIfPresent(wallet, forKey: .wallet)
        try container.encodeIfPresent(branch, forKey: .branch)
        try container.encodeIfPresent(derivationIndex, forKey: .derivationIndex)
        if hiddenCharacters { try container.encode(true, forKey: .hiddenCharacters) }
    }
}
