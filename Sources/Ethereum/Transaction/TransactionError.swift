/// Errors from reading an unsigned Ethereum transaction or assembling a signed one.
public enum TransactionError: Error, Equatable, Sendable {
    /// The RLP itself is malformed or non-canonical.
    case rlp(RLPError)
    /// The first byte names a transaction type this code does not read (EIP-2718 type byte).
    case unsupportedType(UInt8)
    /// The transaction is empty.
    case empty
    /// The `to` field is neither empty (contract creation) nor 20 bytes (its length).
    case invalidRecipient(length: Int)
    /// An access-list entry is malformed (why).
    case invalidAccessList(String)
    /// A legacy transaction carries signature fields other than EIP-155's `chainId, 0, 0`.
    case invalidLegacySignatureFields
    /// The chain id is zero.
    case zeroChainID
    /// The signature's recovery id is above 1 (R's x overflowed the order), which Ethereum does not accept.
    case unsupportedRecoveryID(UInt8)
    /// An EIP-155 `v` does not fit (chain id too large).
    case chainIDTooLarge
}

extension TransactionError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .rlp(let error): "its RLP is malformed: \(error)"
        case .unsupportedType(let type): "transaction type \(type) is not one this signer reads (0, 1 and 2 are)"
        case .empty: "the transaction is empty"
        case .invalidRecipient(let length):
            "the recipient is \(length) bytes, not 20 (or empty for a contract creation)"
        case .invalidAccessList(let why): "the access list is malformed: \(why)"
        case .invalidLegacySignatureFields: "a legacy transaction's last fields are not EIP-155's chain id, 0, 0"
        case .zeroChainID: "the chain id is 0"
        case .unsupportedRecoveryID(let id): "the signature's recovery id \(id) is not 0 or 1"
        case .chainIDTooLarge: "the chain id is too large for an EIP-155 v"
        }
    }
}
