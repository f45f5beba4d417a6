/// Errors from parsing fee rates or computing fees from them.
public enum FeeRateError: Error, Equatable, Sendable {
    /// The text is not a non-negative decimal number of sat/vB; the offending text.
    case invalidFormat(String)
    /// More than 3 decimals (finer than 1 sat per 1000 vB); the number of decimals given.
    case tooManyDecimals(Int)
    /// The rate or the fee it gives is too large to represent or exceeds 21,000,000 BTC.
    case overflow
    /// A fee rate asked of a zero-size transaction.
    case zeroSize
}
