/// Errors from parsing amounts or doing arithmetic on them.
public enum AmountError: Error, Equatable, Sendable {
    /// The text is empty or not a number with an optional `btc` / `sat` unit; the offending text.
    case invalidFormat(String)
    /// A BTC amount with more than 8 decimal places (finer than one satoshi); the number of decimals given.
    case tooManyDecimals(Int)
    /// A negative amount, or a subtraction that would go below zero.
    case negative
    /// The amount exceeds 21,000,000 BTC, or arithmetic on it overflowed.
    case exceedsMaxMoney
}
