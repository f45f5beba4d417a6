import ChainCore
import Ethereum

/// The ERC-20 reads the watcher makes with `eth_call`, and strict decoding of their answers (a node's bytes are
/// checked: one 32-byte word for a number, a well-formed ABI string).
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-20, https://docs.soliditylang.org/en/latest/abi-spec.html
public enum ERC20Read {
    static func selector(_ signature: String) -> [UInt8] { Array(Keccak256.hash(Array(signature.utf8)).prefix(4)) }

    /// `balanceOf(address)`.
    public static func balanceOf(_ owner: EthereumAddress) -> [UInt8] {
        selector("balanceOf(address)") + [UInt8](repeating: 0, count: 12) + owner.bytes
    }

    /// `decimals()`, `symbol()`, `name()`.
    public static let decimals = selector("decimals()")
    public static let symbol = selector("symbol()")
    public static let name = selector("name()")

    /// One uint256 word.
    ///
    /// - Throws: `ChainError.invalidField` unless the answer is exactly 32 bytes.
    public static func uint(_ answer: [UInt8], server: String, field: String) throws(ChainError) -> UInt256 {
        guard answer.count == 32, let value = try? UInt256(bigEndian: answer) else {
            throw .invalidField(server: server, field: field, value: EthHex.data(answer.prefix(40)))
        }
        return value
    }

    /// An ABI `string` return value (offset 32, length, UTF-8 bytes padded to a word).
    ///
    /// Also the old `bytes32` form
    /// some tokens return (trailing zeros dropped). Control characters are removed.
    ///
    /// - Throws: `ChainError.invalidField` for a malformed encoding.
    public static func string(_ answer: [UInt8], server: String, field: String) throws(ChainError) -> String {
        let fail = ChainError.invalidField(server: server, field: field, value: EthHex.data(answer.prefix(40)))
        var bytes: [UInt8]
        if answer.count == 32 {
            bytes = Array(answer.prefix { $0 != 0 })
        } else {
            guard answer.count >= 64, answer.count % 32 == 0,
                let offset = try? UInt256(bigEndian: answer[0..<32]).uint64, offset == 32,
                let length = try? UInt256(bigEndian: answer[32..<64]).uint64, length <= 256,
                answer.count >= 64 + Int(length)
            else { throw fail }
            bytes = Array(answer[64..<(64 + Int(length))])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw fail }
        return String(
            text.unicodeScalars.filter {
                !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && $0.value != 0x7F
            }.map(Character.init))
    }

    /// A token's metadata from its contract.
    ///
    /// - Throws: `ChainError` when the node fails or the contract answers no ERC-20 metadata.
    public static func metadata(of contract: EthereumAddress, node: any EthereumNode) async throws(ChainError)
        -> EthereumToken
    {
        let answers = try await node.calls(
            [
                EthCall(to: contract, data: decimals), EthCall(to: contract, data: symbol),
                EthCall(to: contract, data: name),
            ],
            at: .latest)
        guard answers.count == 3 else { throw .protocolViolation("\(answers.count) answers to 3 calls") }
        let places = try uint(answers[0], server: node.displayName, field: "decimals()")
        guard let small = places.uint64, small <= 77 else {
            throw .invalidField(server: node.displayName, field: "decimals()", value: places.description)
        }
        return EthereumToken(
            contract: contract, symbol: try string(answers[1], server: node.displayName, field: "symbol()"),
            name: try string(answers[2], server: node.displayName, field: "name()"), decimals: Int(small))
    }
}
