/// Amount text: `0.001btc`, `100000sat`, or a plain BTC decimal such as `0.5`; and BTC formatting.
extension Amount {
    /// Parses `0.001btc` / `0.001 BTC`, `100000sat` / `100000 sats`, or a plain number of BTC with at most 8 decimals.
    ///
    /// - Throws: `AmountError.invalidFormat`, `.tooManyDecimals`, `.negative` or `.exceedsMaxMoney`.
    public init(string: String) throws(AmountError) {
        var text = string.trimmingWhitespace().lowercased()
        var unitIsSats = false
        for (suffix, sats) in [("sats", true), ("sat", true), ("btc", false)] where text.hasSuffix(suffix) {
            text = String(text.dropLast(suffix.count)).trimmingWhitespace()
            unitIsSats = sats
            break
        }
        guard !text.isEmpty else { throw .invalidFormat(string) }
        if text.hasPrefix("-") { throw .negative }
        if text.hasPrefix("+") { text.removeFirst() }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty)),
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } })
        else { throw .invalidFormat(string) }
        let fraction = parts.count == 2 ? Array(parts[1].utf8) : []
        let allowedDecimals = unitIsSats ? 0 : 8
        // Trailing zeros beyond the allowed precision change nothing ("1.000000000" is 1 BTC).
        let trailingZeros = fraction.reversed().firstIndex { $0 != UInt8(ascii: "0") } ?? fraction.count
        let significant = fraction.count - trailingZeros
        guard significant <= allowedDecimals else {
            throw unitIsSats ? .invalidFormat(string) : .tooManyDecimals(fraction.count)
        }
        var sats: UInt64 = 0
        for digit in parts[0].utf8 + fraction.prefix(allowedDecimals)
            + Array(
                repeating: UInt8(ascii: "0"), count: Swift.max(0, allowedDecimals - fraction.count))
        {
            let (times10, overflow1) = sats.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .exceedsMaxMoney }
            sats = next
        }
        try self.init(sats: sats)
    }

    /// The amount in BTC with all 8 decimals, as Bitcoin Core prints it: `0.00100000`.
    public var btcString: String {
        let whole = sats / Self.satsPerBitcoin
        let fraction = String(sats % Self.satsPerBitcoin)
        return "\(whole)." + String(repeating: "0", count: 8 - fraction.count) + fraction
    }
}

extension Amount: CustomStringConvertible {
    /// The amount as `0.00100000 BTC`.
    public var description: String { btcString + " BTC" }
}

extension String {
    func trimmingWhitespace() -> String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
