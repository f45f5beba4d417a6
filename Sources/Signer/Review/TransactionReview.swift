import Bitcoin
import Foundation

/// The review shown before signing, in the order a careful signer reads it (as SeedSigner does): what leaves, what
/// comes back as change, the fee, the inputs, then the warnings; plus what the policy refuses.
public struct TransactionReview: Sendable {
    /// The analysis the review is built on.
    public let analysis: PSBTAnalysis
    /// What the policy refuses; the PSBT is signed only when this is empty.
    public let refusals: [SigningRefusal]
    /// The policy applied.
    public let policy: SigningPolicy

    /// Reviews `psbt` for this signer's `accounts` under `policy`.
    ///
    /// - Throws: `PSBTError` when the PSBT's transaction cannot be assembled.
    public init(_ psbt: PSBT, accounts: [Descriptor], policy: SigningPolicy) throws(PSBTError) {
        let analysis = try PSBTAnalysis(psbt: psbt, accounts: accounts, network: policy.network)
        self.analysis = analysis
        self.policy = policy
        var refusals: [SigningRefusal] = []
        let ours = analysis.inputs.filter { if case .ours = $0.ownership { true } else { false } }
        if ours.isEmpty { refusals.append(.nothingToSign) }
        for input in ours {
            let isTaproot: Bool = if case .p2tr = input.scriptPubKey?.template { true } else { false }
            if let type = input.sighashType, !(type == 1 || (isTaproot && type == 0)), !policy.allowNonDefaultSighash {
                refusals.append(.nonDefaultSighash(input: input.index, type: type))
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
        if analysis.fee == nil {
            refusals.append(.unknownFee)
        } else if let rate = analysis.feeRate, rate > policy.maxFeeRateSatsPerVByte {
            refusals.append(.feeRateTooHigh(satsPerVByte: rate, maximum: policy.maxFeeRateSatsPerVByte))
        }
        self.refusals = refusals
    }

    /// Whether the policy lets this PSBT be signed.
    public var isAcceptable: Bool { refusals.isEmpty }

    /// The review as text for the offline screen.
    public var text: String {
        var lines: [String] = []
        lines.append("Transaction \(analysis.txid)")
        let external = analysis.outputs.filter(\.isExternal)
        lines.append("")
        lines.append("SENDING (\(external.count) destination\(external.count == 1 ? "" : "s")):")
        for output in external {
            let note = output.ownership == .claimedButNotOurs ? "  <-- CLAIMS TO BE CHANGE, IS NOT OURS" : ""
            lines.append(
                "  \(Self.btc(output.amount))  to  \(output.address ?? "script " + output.scriptPubKey.hexString)\(note)"
            )
        }
        let change = analysis.outputs.filter { !$0.isExternal }
        if !change.isEmpty {
            lines.append("")
            lines.append("CHANGE / OWN ADDRESSES (verified against this vault):")
            for output in change {
                let placement =
                    if case .ours(_, let branch, let index) = output.ownership {
                        " (branch \(branch), index \(index))"
                    } else { "" }
                lines.append(
                    "  \(Self.btc(output.amount))  to  \(output.address ?? output.scriptPubKey.hexString)\(placement)")
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
        if !analysis.warnings.isEmpty {
            lines.append("")
            lines.append("WARNINGS:")
            for warning in analysis.warnings { lines.append("  ! \(warning)") }
        }
        if !refusals.isEmpty {
            lines.append("")
            lines.append("REFUSED:")
            for refusal in refusals { lines.append("  x \(refusal)") }
        }
        return lines.joined(separator: "\n")
    }

    static func btc(_ amount: Amount) -> String { "\(amount.btcString) BTC" }
}
