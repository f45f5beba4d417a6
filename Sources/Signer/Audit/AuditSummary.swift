import Bitcoin

/// What a signature did, as the journal records it: the transaction id, each external destination, change and fee.
///
/// No keys, no derivation paths.
public struct AuditSummary: Sendable, Equatable {
    /// One external payment.
    public struct Destination: Sendable, Equatable {
        /// The address (or `script:HEX` when the output has no address form).
        public let address: String
        /// The amount sent to it.
        public let amount: Amount

        /// A destination from its parts.
        public init(address: String, amount: Amount) {
            self.address = address
            self.amount = amount
        }
    }

    /// The txid of the unsigned transaction (hex, display order).
    public let txid: String
    /// The external payments.
    public let destinations: [Destination]
    /// The total going back to the wallet, when known.
    public let change: Amount?
    /// The fee, when known.
    public let fee: Amount?
    /// A free note (for example "2 of 3 inputs signed").
    public let note: String?
    /// The `--allow-*` overrides in effect (`--allow-network`, `AIRLOCK_ALLOW_NETWORK`, `--allow-unregistered`, …);
    /// recorded by keyed entries only.
    public let allowFlags: [String]
    /// The indexes of the inputs signed; recorded by keyed entries only.
    public let signedInputs: [Int]

    /// A summary from its parts.
    public init(
        txid: String, destinations: [Destination], change: Amount? = nil, fee: Amount? = nil, note: String? = nil,
        allowFlags: [String] = [], signedInputs: [Int] = []
    ) {
        self.txid = txid
        self.destinations = destinations
        self.change = change
        self.fee = fee
        self.note = note
        self.allowFlags = allowFlags
        self.signedInputs = signedInputs
    }

    /// What the journal records of a reviewed transaction: its txid, the external payments (an address, or
    /// `script:HEX` for an output without one), the change and the fee.
    public init(review: TransactionReview) {
        self.init(
            txid: review.analysis.txid.hexString,
            destinations: review.analysis.outputs.filter(\.isExternal).map {
                Destination(address: $0.address ?? "script:" + $0.scriptPubKey.hexString, amount: $0.amount)
            },
            change: review.analysis.changeAmount, fee: review.analysis.fee)
    }

    /// The same summary with the overrides in effect and the inputs signed.
    public func recording(allowFlags: [String], signedInputs: [Int]) -> AuditSummary {
        AuditSummary(
            txid: txid, destinations: destinations, change: change, fee: fee, note: note,
            allowFlags: self.allowFlags + allowFlags.filter { !self.allowFlags.contains($0) },
            signedInputs: signedInputs)
    }
}
