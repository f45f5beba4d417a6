/// An ERC-20 call decoded from (or encoded to) transaction calldata: `transfer`, `approve`, `transferFrom`.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-20
public enum ERC20Call: Sendable, Equatable {
    /// `transfer(address to, uint256 amount)`, selector `a9059cbb`.
    case transfer(to: EthereumAddress, amount: UInt256)
    /// `approve(address spender, uint256 amount)`, selector `095ea7b3`.
    case approve(spender: EthereumAddress, amount: UInt256)
    /// `transferFrom(address from, address to, uint256 amount)`, selector `23b872dd`.
    case transferFrom(from: EthereumAddress, to: EthereumAddress, amount: UInt256)

    static let transferSelector: [UInt8] = [0xA9, 0x05, 0x9C, 0xBB]
    static let approveSelector: [UInt8] = [0x09, 0x5E, 0xA7, 0xB3]
    static let transferFromSelector: [UInt8] = [0x23, 0xB8, 0x72, 0xDD]

    /// Decodes calldata; nil when the selector is none of the three.
    ///
    /// - Throws: `ABIError` when the selector matches but the arguments are malformed (wrong length, an address
    ///   word with non-zero upper bytes).
    public init?(calldata: [UInt8]) throws(ABIError) {
        guard calldata.count >= 4 else { return nil }
        let selector = Array(calldata.prefix(4))
        let words: Int
        switch selector {
        case Self.transferSelector, Self.approveSelector: words = 2
        case Self.transferFromSelector: words = 3
        default: return nil
        }
        guard calldata.count == 4 + 32 * words else {
            throw .wrongLength(expected: 4 + 32 * words, actual: calldata.count)
        }
        let w = (0..<words).map { Array(calldata[(4 + 32 * $0)..<(36 + 32 * $0)]) }
        switch selector {
        case Self.transferSelector:
            self = .transfer(to: try Self.address(w[0]), amount: try Self.uint(w[1]))
        case Self.approveSelector:
            self = .approve(spender: try Self.address(w[0]), amount: try Self.uint(w[1]))
        default:
            self = .transferFrom(from: try Self.address(w[0]), to: try Self.address(w[1]), amount: try Self.uint(w[2]))
        }
    }

    /// The calldata: selector and 32-byte words.
    public var calldata: [UInt8] {
        switch self {
        case .transfer(let to, let amount): Self.transferSelector + Self.word(to) + amount.bigEndianBytes
        case .approve(let spender, let amount): Self.approveSelector + Self.word(spender) + amount.bigEndianBytes
        case .transferFrom(let from, let to, let amount):
            Self.transferFromSelector + Self.word(from) + Self.word(to) + amount.bigEndianBytes
        }
    }

    /// Whether this is an approval of 2^256 - 1 (the "unlimited" allowance wallets ask for).
    public var isUnlimitedApproval: Bool {
        if case .approve(_, let amount) = self { return amount == .max }
        return false
    }

    private static func word(_ address: EthereumAddress) -> [UInt8] { [UInt8](repeating: 0, count: 12) + address.bytes }

    private static func address(_ word: [UInt8]) throws(ABIError) -> EthereumAddress {
        guard word.prefix(12).allSatisfy({ $0 == 0 }) else { throw .dirtyAddressWord }
        do { return try EthereumAddress(bytes: word.suffix(20)) } catch { throw .dirtyAddressWord }
    }

    private static func uint(_ word: [UInt8]) throws(ABIError) -> UInt256 {
        do { return try UInt256(bigEndian: word) } catch { throw .wrongLength(expected: 32, actual: word.count) }
    }
}

/// Errors from decoding ABI-encoded calldata.
public enum ABIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The calldata has the wrong length for its selector (expected, actual).
    case wrongLength(expected: Int, actual: Int)
    /// An address argument has non-zero bytes above its 20 bytes.
    case dirtyAddressWord
    /// An argument is malformed (why).
    case malformed(String)

    public var description: String {
        switch self {
        case .wrongLength(let expected, let actual): "the calldata is \(actual) bytes, its function takes \(expected)"
        case .dirtyAddressWord: "an address argument has bytes set above its 20 bytes"
        case .malformed(let why): why
        }
    }
}
