import Bitcoin
import CLISupport
import Watcher

// The `--json` output types of `send`, `bump`, `combine`, `finalize` and `broadcast` (docs/architecture.md rule R9).

/// The outputs and fee of a transaction, as `send`, `bump` and `broadcast` report them.
struct TransactionSummaryJSON: Encodable, Sendable {
    /// One output: its address (or script hex), amount in sat, and whether it is this wallet's change.
    struct Output: Encodable, Sendable {
        let address: String
        let amount: UInt64
        let change: Bool
    }
    let outputs: [Output]
    let vsize: Int
    /// The fee in sat; null when the PSBT does not carry every input's value.
    @NullEncoded var fee: UInt64?
    /// sat/vB, two decimals; left out when the fee is unknown.
    let feeRate: Double?
}

/// An input a new transaction spends.
struct SpentCoinJSON: Encodable, Sendable {
    let outpoint: String
    let value: UInt64
}

/// `send --json`.
struct SendJSON: Encodable, Sendable {
    let summary: TransactionSummaryJSON
    let txid: String
    let psbt: String
    let written: [String]
    let inputs: [SpentCoinJSON]
    @NullEncoded var changeIndex: Int?
    let algorithm: String
    let locktime: Int
    let rbf: Bool
    /// `send --recovery` only: the timelocked path and from when it is valid.
    var recovery: RecoveryJSON?

    private enum CodingKeys: String, CodingKey {
        case txid, psbt, written, inputs, changeIndex, algorithm, locktime, rbf, recovery
    }

    func encode(to encoder: any Encoder) throws {
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
struct SendPlanJSON: Encodable, Sendable {
    /// One planned output.
    struct Output: Encodable, Sendable {
        let script: String
        let value: UInt64
        let change: Bool
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
struct BumpJSON: Encodable, Sendable {
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

    func encode(to encoder: any Encoder) throws {
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
struct BroadcastJSON: Encodable, Sendable {
    let summary: TransactionSummaryJSON
    let txid: String
    let transaction: String

    private enum CodingKeys: String, CodingKey {
        case txid, transaction
    }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txid, forKey: .txid)
        try container.encode(transaction, forKey: .transaction)
    }
}

/// `combine --json`.
struct CombineJSON: Encodable, Sendable {
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
struct FinalizeJSON: Encodable, Sendable {
    let txid: String
    let psbt: String
    let transaction: String
    let written: [String]
}

/// The recovery path of a `send --recovery`: who signs, the lock fields set, and from which tip height the node
/// accepts the transaction (null when that cannot be told in blocks: an unconfirmed coin or a time lock).
struct RecoveryJSON: Encodable, Sendable {
    /// The taproot leaf of a `tr()` wallet's recovery path (1-based, as the signer numbers leaves); absent for wsh.
    let leaf: Int?
    let signers: [String]
    let sequence: Int
    let locktime: Int
    @NullEncoded var relativeTimelock: Int?
    @NullEncoded var absoluteTimelock: Int?
    @NullEncoded var validFromHeight: Int?
    @NullEncoded var tipHeight: Int?

    /// The stderr line.
    var text: String {
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
