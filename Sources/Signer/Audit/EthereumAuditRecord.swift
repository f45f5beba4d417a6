public import Ethereum

/// What an Ethereum signature did, as the journal records it beside the Bitcoin summaries (docs/formats.md, "Audit
/// journal"): the kind of data, chain, signing address, recipient, value and worst-case fee of a transaction, and the
/// decoded call (an ERC-20 call, or the EIP-712 primary type).
///
/// No keys and no derivation paths; amounts in wei as decimal text (they do not fit a JSON number).
public struct EthereumAuditRecord: Sendable, Equatable {
    /// What was signed.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case transaction
        case typedData = "typed-data"
        case personalMessage = "personal-message"
    }

    /// The kind of data signed.
    public let kind: Kind
    /// The chain id, when the request or the data names one.
    public let chainID: UInt64?
    /// The signing address (EIP-55).
    public let from: String
    /// A transaction's recipient (EIP-55); nil for a contract creation or a message.
    public let to: String?
    /// A transaction's value in wei.
    public let valueWei: String?
    /// A transaction's worst-case fee in wei (gas limit × gas price or max fee per gas).
    public let feeWei: String?
    /// The decoded call: the ERC-20 line of the review, a calldata selector, or `EIP-712 <primaryType>`.
    public let call: String?

    /// A record from its parts.
    public init(
        kind: Kind, chainID: UInt64?, from: String, to: String? = nil, valueWei: String? = nil, feeWei: String? = nil,
        call: String? = nil
    ) {
        self.kind = kind
        self.chainID = chainID
        self.from = from
        self.to = to
        self.valueWei = valueWei
        self.feeWei = feeWei
        self.call = call
    }

    /// The record of what `review` shows.
    public init(review: EthereumReview) {
        let call = review.call
        switch review.content {
        case .transaction(let tx, _):
            self.init(
                kind: .transaction, chainID: review.chainID, from: review.from.checksummed, to: tx.to?.checksummed,
                valueWei: tx.value.amount.description, feeWei: (try? tx.worstCaseFee())?.amount.description,
                call: call)
        case .typedData(let data):
            self.init(
                kind: .typedData, chainID: review.chainID, from: review.from.checksummed,
                call: "EIP-712 \(data.primaryType)")
        case .personalMessage:
            self.init(kind: .personalMessage, chainID: review.chainID, from: review.from.checksummed)
        }
    }
}
