import Bitcoin
import Watcher

// The `--json` documents of `send`, `bump`, `combine`, `finalize` and `broadcast` (docs/architecture.md rule R9), built
// by the flows' reports; property names become snake_case keys through the CLI's encoder.

/// An input a new transaction spends.
public struct SpentCoinJSON: Encodable, Sendable {
    let outpoint: String
    let value: UInt64
}

/// `send --json`.
public struct SendJSON: Encodable, Sendable {
    let summary: TransactionSummaryJSON
    let txid: String
    let psbt: String
    let written: [String]
    let inputs: [SpentCoinJSON]
    @JSONNullable var changeIndex: Int?
    let algorithm: String
    let locktime: Int
    let rbf: Bool
    /// `send --recovery` only: the timelocked path and from when it is valid.
    var recovery: RecoveryJSON?

    private enum CodingKeys: String, CodingKey {
        case txid, psbt, written, inputs, changeIndex, algorithm, locktime, rbf, recovery
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txid, forKey: .txid)
        try container.encode(psbt, forKey: .psbt)
        try container.encode(written, forKey: .written)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(_changeIndex, forKey: .changeIndex)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(locktime, forKey: .locktime)
        try container.encode(rbf, forKey: .rbf)
        try container.encodeIfPresent(recovery, forKey: .recovery)
    }
}

/// `send --dry-run --json`: the plan without a PSBT.
public struct SendPlanJSON: Encodable, Sendable {
    /// One planned output.
    public struct Output: Encodable, Sendable {
        /// The script in hex; null for a silent-payment output (the signer computes it).
        let script: String?
        let value: UInt64
        let change: Bool
        /// The silent-payment address paid (only on such outputs, beside `"script_computed_by": "signer"`).
        var silentPayment: String?

        enum CodingKeys: String, CodingKey {
            case script, value, change
            case silentPayment = "silent_payment"
            case scriptComputedBy = "script_computed_by"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(script, forKey: .script)
            try container.encode(value, forKey: .value)
            try container.encode(change, forKey: .change)
            if let silentPayment {
                try container.encode(silentPayment, forKey: .silentPayment)
                try container.encode("signer", forKey: .scriptComputedBy)
            }
        }
    }
    let txid: String
    let fee: UInt64
    let feeRateSatPerKvb: UInt64
    let algorithm: String
    let waste: Int64
    let locktime: Int
    let rbf: Bool
    let inputs: [SpentCoinJSON]
    let outputs: [Output]
    let unsignedTx: String
}

/// `bump --json`.
public struct BumpJSON: Encodable, Sendable {
    let summary: TransactionSummaryJSON
    let txid: String
    let replaces: String
    let originalFee: UInt64
    let psbt: String
    let written: [String]
    let inputs: [String]

    private enum CodingKeys: String, CodingKey {
        case txid, replaces, originalFee, psbt, written, inputs
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txid, forKey: .txid)
        try container.encode(replaces, forKey: .replaces)
        try container.encode(originalFee, forKey: .originalFee)
        try container.encode(psbt, forKey: .psbt)
        try container.encode(written, forKey: .written)
        try container.encode(inputs, forKey: .inputs)
    }
}

/// `broadcast --json`.
public struct BroadcastJSON: Encodable, Sendable {
    let summary: TransactionSummaryJSON
    let txid: String
    let transaction: String

    private enum CodingKeys: String, CodingKey {
        case txid, transaction
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txid, forKey: .txid)
        try container.encode(transaction, forKey: .transaction)
    }
}

/// `combine --json`.
public struct CombineJSON: Encodable, Sendable {
    let txid: String
    let psbt: String
    let written: [String]
    /// Signatures (or final scripts) per input.
    let signatures: [Int]
    let usedKeptPsbt: Bool
    /// Chance `multisig:` texts combined: the combined text (`psbt` is its PSBT).
    var multisigText: String?
    /// Chance `multisig:` texts: whether enough key positions have signed.
    var complete: Bool?
}

/// `finalize --json`.
public struct FinalizeJSON: Encodable, Sendable {
    let txid: String
    let psbt: String
    let transaction: String
    let written: [String]
}

/// The recovery path of a `send --recovery`: who signs, the lock fields set, and from which tip height the node
/// accepts the transaction (null when that cannot be told in blocks: an unconfirmed coin or a time lock).
public struct RecoveryJSON: Encodable, Sendable {
    /// The taproot leaf of a `tr()` wallet's recovery path (1-based, as the signer numbers leaves); absent for wsh.
    let leaf: Int?
    let signers: [String]
    let sequence: Int
    let locktime: Int
    @JSONNullable var relativeTimelock: Int?
    @JSONNullable var absoluteTimelock: Int?
    @JSONNullable var validFromHeight: Int?
    @JSONNullable var tipHeight: Int?

    /// The stderr line.
    public var text: String {
        var lines = [
            "recovery path: " + (leaf.map { "leaf \($0), " } ?? "") + "signed by \(signers.joined(separator: ", "))"
        ]
        if let relativeTimelock { lines[0] += ", older(\(relativeTimelock)) → nSequence \(sequence)" }
        if let absoluteTimelock { lines[0] += ", after(\(absoluteTimelock)) → nLockTime \(locktime)" }
        if let validFromHeight, let tipHeight {
            lines.append(
                validFromHeight <= tipHeight
                    ? "valid now: the node accepts it at the tip height \(tipHeight)"
                    : "NOT VALID YET: the node accepts it from height \(validFromHeight) (tip \(tipHeight), "
                        + "\(validFromHeight - tipHeight) more block(s)); sign it now, broadcast it then")
        } else {
            lines.append("valid once the coins are confirmed and the timelock has passed (not told in blocks)")
        }
        return lines.joined(separator: "\n")
    }
}

/// `bump --cpfp --json`.
public struct ChildJSON: Encodable, Sendable {
    /// One output of the child.
    public struct Output: Encodable, Sendable {
        let address: String?
        let amount: UInt64
    }
    let txid: String
    let parent: String
    let parentFee: UInt64
    let parentVsize: Int
    let fee: UInt64
    let vsize: Int
    let packageFeeRate: Double
    let inputs: [String]
    let outputs: [Output]
    let psbt: String
    let written: [String]

    enum CodingKeys: String, CodingKey {
        case txid, parent, fee, vsize, inputs, outputs, psbt, written
        case parentFee = "parent_fee"
        case parentVsize = "parent_vsize"
        case packageFeeRate = "package_fee_rate"
    }
}
