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
