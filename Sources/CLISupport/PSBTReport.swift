import Bitcoin
import Descriptors
import Foundation

/// What `inspect` shows of a PSBT without a vault: the transaction, amounts, fee, signatures and warnings.
///
/// Shared by the signer's and the watcher's `inspect` (the watcher adds what its wallet knows).
public struct PSBTReport {
    public let psbt: PSBT
    public let analysis: PSBTAnalysis
    public let network: Network
    /// Each multisig input's signature state, signatures verified where the UTXOs allow.
    public let multisigStatuses: [Int: MultisigSignatureStatus]

    public init(_ psbt: PSBT, network: Network?) throws {
        self.psbt = psbt
        self.multisigStatuses = MultisigSignatureStatus.statuses(of: psbt)
        let chosen = network ?? PSBTAnalysis.networkHint(psbt)?.network ?? .main
        self.network = chosen
        self.analysis = try PSBTAnalysis(psbt: psbt, accounts: [], network: chosen)
    }

    /// Warnings that mean something without a vault (ownership needs one).
    public var warnings: [PSBTWarning] {
        analysis.warnings.filter {
            switch $0 {
            case .foreignInput, .inputMismatch, .changeMismatch, .networkMismatch: false
            default: true
            }
        }
    }

    /// Partial signatures of an input (ECDSA, taproot script and key path).
    public func signatureCount(_ input: PSBTInput) -> Int {
        input.map.entries(PSBTKeyType.Input.partialSig).count + input.map.entries(PSBTKeyType.Input.tapScriptSig).count
            + (input.tapKeySignature == nil ? 0 : 1)
    }

    public var isComplete: Bool { psbt.inputs.allSatisfy(\.isFinalized) }

    /// The `--json` form (`airlock-signer inspect`).
    public var json: PSBTReportJSON {
        PSBTReportJSON(
            psbtVersion: Int(psbt.version), network: network.rawValue, txid: analysis.txid.hexString,
            txVersion: Int(analysis.version), locktime: Int(analysis.locktime), fee: analysis.fee?.sats,
            feeRate: analysis.feeRate.map { ($0 * 100).rounded() / 100 }, vsize: analysis.estimatedVSize,
            complete: isComplete,
            inputs: analysis.inputs.map { input in
                .init(
                    index: input.index, txid: input.outpoint.txid.hexString, vout: Int(input.outpoint.vout),
                    amount: input.amount?.sats, address: input.address, finalized: input.isFinalized,
                    signatures: signatureCount(psbt.inputs[input.index]), sighash: input.sighashType.map { Int($0) },
                    multisig: multisigStatuses[input.index].map {
                        MultisigStatusJSON($0, wallet: nil)
                    }
                )
            },
            outputs: analysis.outputs.map { output in
                .init(
                    index: output.index, address: output.address, amount: output.amount.sats,
                    script: output.scriptPubKey.hexString)
            },
            warnings: warnings.map(\.description))
    }

    public var text: String {
        var lines = ["PSBT v\(psbt.version), transaction \(analysis.txid) (network \(network.rawValue))"]
        lines.append("inputs (\(analysis.inputs.count)):")
        for input in analysis.inputs {
            let amount = input.amount.map { "\($0.btcString) BTC" } ?? "amount unknown"
            let state = input.isFinalized ? "finalized" : "\(signatureCount(psbt.inputs[input.index])) signature(s)"
            lines.append("  \(input.index): \(input.outpoint)  \(amount)  \(input.address ?? "")  [\(state)]")
            if let status = multisigStatuses[input.index] {
                lines.append("     multisig \(status.summary())")
            }
        }
        lines.append("outputs (\(analysis.outputs.count)):")
        for output in analysis.outputs {
            lines.append(
                "  \(output.index): \(output.amount.btcString) BTC  to  \(output.address ?? "script " + output.scriptPubKey.hexString)"
            )
        }
        if let fee = analysis.fee, let rate = analysis.feeRate {
            lines.append(
                "fee: \(fee.btcString) BTC (\(String(format: "%.1f", rate)) sat/vB, ~\(analysis.estimatedVSize) vB)")
        } else {
            lines.append("fee: unknown (an input has no UTXO)")
        }
        lines.append(isComplete ? "complete: every input is finalized" : "not complete")
        for warning in warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
