public import Ethereum

/// What an Ethereum request does, as the signer shows it before signing (DESIGN.md section 10).
public struct EthereumReview: Sendable {
    /// What is signed.
    public enum Content: Sendable {
        /// A transaction, with its ERC-20 call when the calldata is one.
        case transaction(EthereumTransaction, erc20: ERC20Call?)
        /// EIP-712 typed data.
        case typedData(TypedData)
        /// An EIP-191 personal message.
        case personalMessage(PersonalMessage)
    }

    /// The decoded content.
    public let content: Content
    /// The signing key's address.
    public let from: EthereumAddress
    /// The chain id (the request's, else the data's).
    public let chainID: UInt64?
    /// The hash that is signed.
    public let signingHash: [UInt8]
    /// Labelled lines for the user, in display order.
    public let lines: [(label: String, value: String)]
    /// Things the user should look at twice (unlimited approval, permit, contract creation).
    public let warnings: [String]
    /// Why the signer will not sign; empty when it may.
    public let refusals: [EthereumRefusal]

    /// Well-known chain names by id.
    public static func chainName(_ id: UInt64) -> String? {
        [
            1: "Ethereum", 10: "OP Mainnet", 56: "BNB Smart Chain", 137: "Polygon", 8453: "Base", 42161: "Arbitrum One",
            11_155_111: "Sepolia", 17000: "Holesky", 131_277_322_940_537: "eth-tester",
        ][id]
    }
}
