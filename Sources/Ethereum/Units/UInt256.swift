/// An unsigned 256-bit integer (Ethereum's word), as four 64-bit limbs, most significant first; arithmetic is checked.
public struct UInt256: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Limbs, most significant first.
    let limbs: [UInt64]

    /// Zero.
    public static let zero = UInt256(limbs: [0, 0, 0, 0])
    /// 2^256 - 1.
    public static let max = UInt256(limbs: [.max, .max, .max, .max])

    init(limbs: [UInt64]) { self.limbs = limbs }

    /// The value of a `UInt64`.
    public init(_ value: UInt64) { self.limbs = [0, 0, 0, value] }

    /// Reads up to 32 big-endian bytes (leading zeros allowed).
    ///
    /// - Throws: `UInt256Error.tooWide` for more than 32 bytes.
    public init(bigEndian bytes: some Collection<UInt8>) throws(UInt256Error) {
        let input = Array(bytes)
        guard input.count <= 32 else { throw .tooWide(bytes: input.count) }
        let padded = [UInt8](repeating: 0, count: 32 - input.count) + input
        var limbs = [UInt64](repeating: 0, count: 4)
        for i in 0..<32 { limbs[i / 8] = limbs[i / 8] << 8 | UInt64(padded[i]) }
        self.limbs = limbs
    }

    /// Parses a decimal string, or a `0x` hex string.
    ///
    /// - Throws: `UInt256Error.invalidDigits` or `.overflow`.
    public init(string text: String) throws(UInt256Error) {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = Array(text.utf8.dropFirst(2))
            guard !digits.isEmpty, digits.count <= 64 else {
                throw digits.isEmpty ? .invalidDigits(text) : .overflow
            }
            var value = UInt256.zero
            for d in digits {
                guard let nibble = Self.hexValue(d) else { throw .invalidDigits(text) }
                value = try value.multiplied(by: 16).adding(UInt256(UInt64(nibble)))
            }
            self = value
        } else {
            guard !text.isEmpty else { throw .invalidDigits(text) }
            var value = UInt256.zero
            for d in text.utf8 {
                guard d >= 0x30, d <= 0x39 else { throw .invalidDigits(text) }
                value = try value.multiplied(by: 10).adding(UInt256(UInt64(d - 0x30)))
            }
            self = value
        }
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }

    /// 32 big-endian bytes.
    public var bigEndianBytes: [UInt8] {
        limbs.flatMap { limb in (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> (8 * UInt64($0))) } }
    }

    /// The big-endian bytes without leading zeros (empty for zero), as RLP writes integers.
    public var minimalBytes: [UInt8] { Array(bigEndianBytes.drop { $0 == 0 }) }

    /// Whether the value is zero.
    public var isZero: Bool { limbs.allSatisfy { $0 == 0 } }

    /// The value as a `UInt64`, or nil when it is wider.
    public var uint64: UInt64? { limbs[0] == 0 && limbs[1] == 0 && limbs[2] == 0 ? limbs[3] : nil }

    /// The sum, or `UInt256Error.overflow`.
    public func adding(_ other: UInt256) throws(UInt256Error) -> UInt256 {
        var out = [UInt64](repeating: 0, count: 4)
        var carry: UInt64 = 0
        for i in (0..<4).reversed() {
            let (s1, o1) = limbs[i].addingReportingOverflow(other.limbs[i])
            let (s2, o2) = s1.addingReportingOverflow(carry)
            out[i] = s2
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        guard carry == 0 else { throw .overflow }
        return UInt256(limbs: out)
    }

    /// The product with a 64-bit factor, or `UInt256Error.overflow`.
    public func multiplied(by factor: UInt64) throws(UInt256Error) -> UInt256 {
        var out = [UInt64](repeating: 0, count: 4)
        var carry: UInt64 = 0
        for i in (0..<4).reversed() {
            let (high, low) = limbs[i].multipliedFullWidth(by: factor)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            out[i] = sum
            carry = high + (overflow ? 1 : 0)
        }
        guard carry == 0 else { throw .overflow }
        return UInt256(limbs: out)
    }

    /// The product, or `UInt256Error.overflow`.
    public func multiplied(by other: UInt256) throws(UInt256Error) -> UInt256 {
        var result = UInt256.zero
        for (index, limb) in other.limbs.enumerated() where limb != 0 {
            var partial = try multiplied(by: limb)
            for _ in 0..<(3 - index) { partial = try partial.shiftedLeft64() }
            result = try result.adding(partial)
        }
        return result
    }

    private func shiftedLeft64() throws(UInt256Error) -> UInt256 {
        guard limbs[0] == 0 else { throw .overflow }
        return UInt256(limbs: [limbs[1], limbs[2], limbs[3], 0])
    }

    /// The quotient and remainder of a division by a non-zero 64-bit divisor.
    public func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: UInt256, remainder: UInt64) {
        precondition(divisor != 0, "division by zero")
        var out = [UInt64](repeating: 0, count: 4)
        var remainder: UInt64 = 0
        for i in 0..<4 {
            let (q, r) = divisor.dividingFullWidth((high: remainder, low: limbs[i]))
            out[i] = q
            remainder = r
        }
        return (UInt256(limbs: out), remainder)
    }

    /// The decimal digits.
    public var description: String {
        if isZero { return "0" }
        var digits: [Character] = []
        var value = self
        while !value.isZero {
            let (q, r) = value.quotientAndRemainder(dividingBy: 10)
            digits.append(Character(String(r)))
            value = q
        }
        return String(digits.reversed())
    }

    public static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        for i in 0..<4 where lhs.limbs[i] != rhs.limbs[i] { return lhs.limbs[i] < rhs.limbs[i] }
        return false
    }
}

/// Errors from reading or computing with 256-bit integers.
public enum UInt256Error: Error, Equatable, Sendable {
    /// More than 32 bytes were given (count).
    case tooWide(bytes: Int)
    /// The text is not a decimal or `0x` hex number.
    case invalidDigits(String)
    /// The result does not fit in 256 bits.
    case overflow
}

extension UInt256Error: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooWide(let bytes): "\(bytes) bytes is wider than 256 bits"
        case .invalidDigits(let text):
            "'" + String(text.prefix(40).filter { ($0.asciiValue ?? 0) > 0x20 && ($0.asciiValue ?? 0x7F) < 0x7F })
                + "' is not a number"
        case .overflow: "the number does not fit in 256 bits"
        }
    }
}
