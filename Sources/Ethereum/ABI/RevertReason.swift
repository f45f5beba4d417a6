/// The reason a contract call reverted, decoded from its revert data: Solidity's and Vyper's `Error(string)`
/// (selector `0x08c379a0`) and `Panic(uint256)` (`0x4e487b71`).
public enum RevertReason {
    /// `Error(string)`'s selector.
    public static let errorSelector: [UInt8] = [0x08, 0xC3, 0x79, 0xA0]
    /// `Panic(uint256)`'s selector.
    public static let panicSelector: [UInt8] = [0x4E, 0x48, 0x7B, 0x71]

    /// The reason in words, or nil when the data is neither (a custom error, or nothing).
    ///
    /// The string is returned as the contract wrote it: show it through `DisplayText`.
    public static func decode(_ data: [UInt8]) -> String? {
        let selector = Array(data.prefix(4))
        let body = Array(data.dropFirst(4))
        if selector == errorSelector {
            // offset (32), length (32), bytes, padded.
            guard body.count >= 64, let offset = small(Array(body[0..<32])), offset + 32 <= body.count,
                let length = small(Array(body[offset..<(offset + 32)])), offset + 32 + length <= body.count
            else { return nil }
            let text = Array(body[(offset + 32)..<(offset + 32 + length)])
            return String(decoding: text, as: UTF8.self)
        }
        if selector == panicSelector, body.count == 32, let code = small(body) {
            return "panic code 0x\(String(code, radix: 16)) (\(panicMeaning(code)))"
        }
        return nil
    }

    /// A 32-byte big-endian word that fits in 24 bits, or nil.
    private static func small(_ word: [UInt8]) -> Int? {
        guard word.count == 32, word.prefix(29).allSatisfy({ $0 == 0 }) else { return nil }
        return word.suffix(3).reduce(0) { $0 << 8 | Int($1) }
    }

    /// Solidity's panic codes.
    static func panicMeaning(_ code: Int) -> String {
        switch code {
        case 0x01: "assertion failed"
        case 0x11: "arithmetic overflow or underflow"
        case 0x12: "division by zero"
        case 0x21: "invalid enum value"
        case 0x22: "invalid storage byte array"
        case 0x31: "pop on an empty array"
        case 0x32: "array index out of bounds"
        case 0x41: "out of memory"
        case 0x51: "call to an invalid function"
        default: "unknown panic"
        }
    }
}
