/// An amount of ether in wei (10^-18 ETH).
public struct Wei: Sendable, Hashable, Comparable {
    /// The number of wei.
    public let amount: UInt256

    /// The amount `amount` wei.
    public init(_ amount: UInt256) { self.amount = amount }

    /// 10^18 wei.
    public static let weiPerEther: UInt64 = 1_000_000_000_000_000_000
    /// 10^9 wei.
    public static let weiPerGwei: UInt64 = 1_000_000_000

    /// The amount in ETH with all 18 decimals (`0.010000000000000000`).
    public var etherString: String { Self.decimal(amount, scale: 18) }

    /// The amount in gwei with 9 decimals, trailing zeros removed (`1.5`, `30`).
    public var gweiString: String {
        var text = Self.decimal(amount, scale: 9)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// `value` as a fixed-point decimal with `scale` fractional digits.
    public static func decimal(_ value: UInt256, scale: Int) -> String {
        var digits = value.description
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        if scale == 0 { return digits }
        let split = digits.index(digits.endIndex, offsetBy: -scale)
        return digits[..<split] + "." + digits[split...]
    }

    public static func < (lhs: Wei, rhs: Wei) -> Bool { lhs.amount < rhs.amount }
}

extension Wei {
    /// Parses an amount of ETH written as a decimal (`0.05`, `1`, at most 18 fractional digits).
    ///
    /// - Throws: `UInt256Error.invalidDigits` or `.overflow`.
    public init(etherString text: String) throws(UInt256Error) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !(whole.isEmpty && parts.count == 1) else {
            throw .invalidDigits(text)
        }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 18, !(whole.isEmpty && fraction.isEmpty) else { throw .invalidDigits(text) }
        let digits =
            (whole.isEmpty ? "0" : String(whole)) + fraction + String(repeating: "0", count: 18 - fraction.count)
        guard digits.allSatisfy(\.isASCII) else { throw .invalidDigits(text) }
        self.init(try UInt256(string: digits))
    }
}
