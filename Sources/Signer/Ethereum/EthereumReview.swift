import Bitcoin
public import Ethereum

/// What an Ethereum request does, as the signer shows it before signing (docs/architecture.md section 10).
public struct EthereumReview: Sendable {
    /// What is signed.
    public enum Content: Sendable {
        /// A transaction, with its token call when the calldata is one the signer decodes.
        case transaction(EthereumTransaction, call: ContractCall?)
        /// EIP-712 typed data.
        case typedData(TypedData)
        /// An EIP-191 personal message.
        case personalMessage(PersonalMessage)
    }

    /// One labelled line of the review.
    public struct Line: Sendable, Equatable {
        /// The label, ready for the terminal (hidden characters escaped).
        public let label: String
        /// The value, ready for the terminal (hidden characters escaped).
        public let value: String
        /// The value as the request holds it (for `--json`, which keeps the data unchanged).
        public let data: String
        /// Whether the label or value held hidden characters (shown escaped).
        public let hiddenCharacters: Bool

        /// A line of text the signer wrote itself (nothing to escape) or from the request (escaped here).
        public init(_ label: String, _ value: String, multiline: Bool = false) {
            let shownLabel = DisplayText.show(label)
            let shownValue = DisplayText.show(value, multiline: multiline)
            self.label = shownLabel.text
            self.value = shownValue.text
            self.data = value
            self.hiddenCharacters = shownLabel.hadHiddenCharacters || shownValue.hadHiddenCharacters
        }
    }

    /// The decoded content.
    public let content: Content
    /// The signing key's address.
    public let from: EthereumAddress
    /// The chain the signature is valid on: the transaction's, or the signed EIP-712 domain's (nil: every chain, or
    /// a message, which names none).
    public let chainID: UInt64?
    /// The hash that is signed.
    public let signingHash: [UInt8]
    /// Labelled lines for the user, in display order.
    public let lines: [Line]
    /// Things the user should look at twice (approvals, permits, blind data, hidden characters).
    public let warnings: [String]
    /// Why the signer will not sign; empty when it may.
    public let refusals: [EthereumRefusal]
    /// The token call in one line, for the audit journal (nil when there is none).
    public let call: String?

    /// A review from its parts (made by EthereumSigner's session and sign flow).
    package init(
        content: Content, from: EthereumAddress, chainID: UInt64?, signingHash: [UInt8], lines: [Line],
        warnings: [String], refusals: [EthereumRefusal], call: String?
    ) {
        self.content = content
        self.from = from
        self.chainID = chainID
        self.signingHash = signingHash
        self.lines = lines
        self.warnings = warnings
        self.refusals = refusals
        self.call = call
    }

    /// Whether any shown text held hidden characters (the review then carries `DisplayText.hiddenCharactersWarning`).
    public var hiddenCharacters: Bool { lines.contains(where: \.hiddenCharacters) }

    /// The review as the terminal shows it: the lines, then each warning after `!!!`.
    public var text: String {
        (lines.map { "\($0.label): \($0.value)" } + warnings.map { "!!! \($0)" }).joined(separator: "\n")
    }

    /// Well-known chain names by id.
    public static func chainName(_ id: UInt64) -> String? {
        [
            1: "Ethereum", 10: "OP Mainnet", 56: "BNB Smart Chain", 137: "Polygon", 8453: "Base", 42161: "Arbitrum One",
            11_155_111: "Sepolia", 17000: "Holesky", 131_277_322_940_537: "eth-tester",
        ][id]
    }
}
