import Bitcoin
import Foundation
import Watcher

/// The outputs and fee of a transaction as `send`, `bump` and `broadcast` show them before it is signed or sent:
/// each output's address (or script hex) and amount, whether it is the wallet's own, the fee and the fee rate.
public struct TransactionSummary: Sendable, Equatable {
    /// One output.
    public struct Output: Sendable, Equatable {
        /// The address, or the script in hex when it has none.
        public let address: String
        public let amount: Amount
        /// Whether it pays this wallet (change).
        public let own: Bool
    }

    public let outputs: [Output]
    /// The virtual size the fee rate is taken over.
    public let vsize: Int
    /// The fee; nil when not every input's value is known.
    public let fee: Amount?

    /// The summary of `transaction`, marking the outputs whose script is in `own`; `names` shows some scripts by
    /// another name (a silent-payment address, whose script the signer computes).
    public init(
        _ transaction: Transaction, fee: Amount?, vsize: Int, network: Network, own: Set<Script>,
        names: [Script: String] = [:]
    ) {
        outputs = transaction.outputs.map { output in
            Output(
                address: names[output.scriptPubKey]
                    ?? (try? Address(scriptPubKey: output.scriptPubKey, network: network))?.description
                    ?? output.scriptPubKey.hexString,
                amount: output.value, own: own.contains(output.scriptPubKey))
        }
        self.vsize = vsize
        self.fee = fee
    }

    /// sat/vB over `vsize`, when the fee is known.
    public var feeRate: Double? { fee.map { Double($0.sats) / Double(max(vsize, 1)) } }

    /// The lines for stderr.
    public var lines: [String] {
        var lines = outputs.map { output in
            (output.own ? "  change  " : "  pay to  ") + "\(output.address)  \(output.amount.btcString) BTC"
                + (output.own ? "  (back to this wallet)" : "")
        }
        if let fee, let rate = feeRate {
            lines.append("fee: \(fee.btcString) BTC (\(String(format: "%.2f", rate)) sat/vB for \(vsize) vB)")
        } else {
            lines.append("fee: unknown (the PSBT does not carry every input's value)")
        }
        return lines
    }

    /// The `--json` members.
    public var json: TransactionSummaryJSON {
        TransactionSummaryJSON(
            outputs: outputs.map { .init(address: $0.address, amount: $0.amount.sats, change: $0.own) }, vsize: vsize,
            fee: fee?.sats, feeRate: feeRate.map { ($0 * 100).rounded() / 100 })
    }
}

/// The fee a PSBT pays, summed with checked arithmetic.
public enum PSBTFee {
    /// The value each input spends, when the PSBT carries it.
    public static func inputValues(_ psbt: PSBT) -> [Amount?] {
        psbt.inputs.indices.map { index in
            guard let outpoint = try? psbt.outpoint(of: index) else { return nil }
            return psbt.inputs[index].spentOutput(vout: outpoint.vout)?.value
        }
    }

    /// The inputs' values less the outputs', when every input's value is known, the sums stay within 21,000,000 BTC
    /// (a crafted PSBT may claim more: no fee is shown rather than a wrapped-around one), and the inputs cover the
    /// outputs; else nil.
    public static func fee(_ psbt: PSBT, transaction: Transaction) -> Amount? {
        let values = inputValues(psbt).compactMap { $0 }
        guard values.count == psbt.inputs.count, let input = try? Amount.sum(values),
            let output = try? Amount.sum(transaction.outputs.map(\.value))
        else { return nil }
        return try? input.subtracting(output)
    }
}

/// An optional member that `--json` spells `null` when absent (a plain optional is left out).
@propertyWrapper
struct JSONNullable<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue value: Value?) { wrappedValue = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// The outputs and fee of a transaction in `--json` (`send`, `bump`, `broadcast`; keys in snake case).
public struct TransactionSummaryJSON: Encodable, Sendable {
    /// One output: its address (or script hex), amount in sat, and whether it is this wallet's change.
    public struct Output: Encodable, Sendable {
        let address: String
        let amount: UInt64
        let change: Bool
    }
    let outputs: [Output]
    let vsize: Int
    /// The fee in sat; null when the PSBT does not carry every input's value.
    @JSONNullable var fee: UInt64?
    /// sat/vB, two decimals; left out when the fee is unknown.
    let feeRate: Double?
}
