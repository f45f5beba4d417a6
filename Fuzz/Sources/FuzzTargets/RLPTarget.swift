// FuzzRLP: feeds libFuzzer input to the strict RLP decoder and to the unsigned-transaction parser EIP-4527 requests
// use. What decodes must re-encode to exactly the input (the decoder accepts only canonical RLP); a parsed
// transaction must serialize back to the input. Thrown errors are expected; crashes and sanitizer reports are bugs.
import Ethereum

extension FuzzTargets {
    /// One input of FuzzRLP.
    public static func rlp(_ bytes: [UInt8]) {
        if let item = try? RLP(serialized: bytes) {
            precondition(item.serialized() == bytes, "canonical RLP did not re-encode to its input")
        }
        if let tx = try? EthereumTransaction(unsignedSerialized: bytes) {
            precondition(tx.unsignedSerialized() == bytes, "an unsigned transaction did not serialize back")
            _ = tx.signingHash
            _ = try? tx.worstCaseFee()
            _ = try? ERC20Call(calldata: tx.data)
        }
    }
}
