import Ethereum

/// A transaction the watcher built, from request to its end on the chain (docs/architecture.md section 10).
public struct EthereumTxRecord: Sendable, Equatable {
    /// Where it is.
    public enum Status: String, Sendable, Equatable, CaseIterable {
        /// The request was written; no signature broadcast yet.
        case requested
        /// Sent to the node, not yet in a block.
        case pending
        /// In a block, succeeded.
        case mined
        /// In a block, reverted: the gas is spent.
        case failed
        /// Another transaction of the same nonce was mined (a bump, or one sent elsewhere).
        case replaced
    }

    /// The 16-byte EIP-4527 request id, hex.
    public var requestID: String
    public var status: Status
    /// The transaction hash once broadcast.
    public var hash: String?
    public var from: EthereumAddress
    /// The recipient of the value or of the tokens.
    public var to: EthereumAddress
    public var value: Wei
    /// The token contract and amount in base units for an ERC-20 transfer.
    public var token: EthereumAddress?
    public var tokenAmount: UInt256?
    public var nonce: UInt64
    public var gasLimit: UInt64
    public var maxFeePerGas: UInt256
    public var maxPriorityFeePerGas: UInt256
    /// The unsigned EIP-1559 transaction (type byte and RLP).
    public var unsigned: [UInt8]
    /// The signed transaction once broadcast.
    public var signed: [UInt8]?
    public var block: UInt64?
    public var gasUsed: UInt64?
    public var effectiveGasPrice: UInt256?
    /// The request id of the record this one replaces (`bump`).
    public var replaces: String?
    public var createdAt: Int

    /// The fee paid once mined or failed: gas used × effective gas price.
    public var feePaid: Wei? {
        guard let gasUsed, let effectiveGasPrice, let fee = try? effectiveGasPrice.multiplied(by: gasUsed) else {
            return nil
        }
        return Wei(fee)
    }
}
