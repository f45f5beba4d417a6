/// A fee rate, kept as satoshis per 1000 virtual bytes so that fractional sat/vB (0.1 sat/vB = 100 sat/kvB) is exact.
///
/// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/policy/feerate.h
public struct FeeRate: Sendable, Hashable, Comparable {
    /// Satoshis per 1000 virtual bytes.
    public let satsPerKVB: UInt64

    /// A rate of `satsPerKVB` satoshis per 1000 vB.
    public init(satsPerKVB: UInt64) { self.satsPerKVB = satsPerKVB }

    /// A whole number of sat/vB.
    ///
    /// - Throws: `FeeRateError.overflow`.
    public init(satsPerVByte: UInt64) throws(FeeRateError) {
        let (value, overflow) = satsPerVByte.multipliedReportingOverflow(by: 1000)
        guard !overflow else { throw .overflow }
        self.satsPerKVB = value
    }

    /// The rate a transaction of `vsize` virtual bytes pays with `fee` (rounded down to 1 sat/kvB).
    ///
    /// - Throws: `FeeRateError.zeroSize`.
    public init(fee: Amount, vsize: Int) throws(FeeRateError) {
        guard vsize > 0 else { throw .zeroSize }
        // fee ≤ 2.1e15, so fee·1000 fits in UInt64.
        self.satsPerKVB = fee.sats * 1000 / UInt64(vsize)
    }

    /// Parses a decimal number of sat/vB with up to 3 decimals (`1`, `2.5`, `0.123`), optionally followed by `sat/vb`.
    ///
    /// - Throws: `FeeRateError.invalidFormat`, `.tooManyDecimals` or `.overflow`.
    public init(string: String) throws(FeeRateError) {
        var text = string.trimmingWhitespace().lowercased()
        if text.hasSuffix("sat/vb") { text = String(text.dropLast(6)).trimmingWhitespace() }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2, !parts[0].isEmpty,
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } })
        else { throw .invalidFormat(string) }
        let fraction = parts.count == 2 ? Array(parts[1].utf8) : []
        guard fraction.count <= 3 else { throw .tooManyDecimals(fraction.count) }
        var value: UInt64 = 0
        for digit in parts[0].utf8 + fraction + Array(repeating: UInt8(ascii: "0"), count: 3 - fraction.count) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .overflow }
            value = next
        }
        self.satsPerKVB = value
    }

    /// The fee for `vsize` virtual bytes at this rate, rounded up to a whole satoshi.
    ///
    /// - Throws: `FeeRateError.overflow` when the fee exceeds 21,000,000 BTC.
    public func fee(forVSize vsize: Int) throws(FeeRateError) -> Amount {
        guard vsize >= 0 else { throw .overflow }
        let (product, overflow) = satsPerKVB.multipliedReportingOverflow(by: UInt64(vsize))
        guard !overflow else { throw .overflow }
        let sats = product / 1000 + (product % 1000 == 0 ? 0 : 1)
        guard let amount = try? Amount(sats: sats) else { throw .overflow }
        return amount
    }

    public static func < (lhs: FeeRate, rhs: FeeRate) -> Bool { lhs.satsPerKVB < rhs.satsPerKVB }
}

extension FeeRate: CustomStringConvertible {
    /// The rate in sat/vB with up to 3 decimals: `2.5 sat/vB`.
    public var description: String {
        let whole = satsPerKVB / 1000
        var fraction = String(satsPerKVB % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole) sat/vB" : "\(whole).\(fraction) sat/vB"
    }
}
