/// An amount of bitcoin in satoshis, from zero to 21,000,000 BTC; arithmetic is checked.
public struct Amount: Sendable, Hashable, Comparable {
    /// The number of satoshis.
    public let sats: UInt64

    /// Satoshis in one bitcoin.
    public static let satsPerBitcoin: UInt64 = 100_000_000
    /// Zero.
    public static let zero = Amount(uncheckedSats: 0)
    /// 21,000,000 BTC, the most that can ever exist (Bitcoin Core's MAX_MONEY).
    public static let maxMoney = Amount(uncheckedSats: 21_000_000 * satsPerBitcoin)

    package init(uncheckedSats sats: UInt64) { self.sats = sats }

    /// An amount of `sats` satoshis.
    ///
    /// - Throws: `AmountError.exceedsMaxMoney` above 21,000,000 BTC.
    public init(sats: UInt64) throws(AmountError) {
        guard sats <= Self.maxMoney.sats else { throw .exceedsMaxMoney }
        self.sats = sats
    }

    /// This amount plus `other`.
    ///
    /// - Throws: `AmountError.exceedsMaxMoney` when the sum passes 21,000,000 BTC.
    public func adding(_ other: Amount) throws(AmountError) -> Amount {
        let (sum, overflow) = sats.addingReportingOverflow(other.sats)
        guard !overflow, sum <= Self.maxMoney.sats else { throw .exceedsMaxMoney }
        return Amount(uncheckedSats: sum)
    }

    /// This amount minus `other`.
    ///
    /// - Throws: `AmountError.negative` when `other` is larger.
    public func subtracting(_ other: Amount) throws(AmountError) -> Amount {
        guard other.sats <= sats else { throw .negative }
        return Amount(uncheckedSats: sats - other.sats)
    }

    /// This amount times `factor`.
    ///
    /// - Throws: `AmountError.exceedsMaxMoney` when the product passes 21,000,000 BTC.
    public func multiplied(by factor: UInt64) throws(AmountError) -> Amount {
        let (product, overflow) = sats.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .exceedsMaxMoney }
        return try Amount(sats: product)
    }

    /// The sum of `amounts`.
    ///
    /// - Throws: `AmountError.exceedsMaxMoney` when the total passes 21,000,000 BTC.
    public static func sum(_ amounts: some Sequence<Amount>) throws(AmountError) -> Amount {
        var total = Amount.zero
        for amount in amounts { total = try total.adding(amount) }
        return total
    }

    public static func < (lhs: Amount, rhs: Amount) -> Bool { lhs.sats < rhs.sats }
}
