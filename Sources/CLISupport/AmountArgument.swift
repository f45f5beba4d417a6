import Bitcoin

/// A Bitcoin amount given on the command line: always with its unit, `0.01btc` or `1000sat` (DESIGN section 11).
///
/// A bare number is refused: `--amount 10000` meant 10,000 BTC to the parser and 10,000 sat to many a user.
public enum AmountArgument {
    /// Parses `text` given to `option`.
    ///
    /// - Throws: `CLIError` usage (1) for a number without a unit, invalid input (2) for text that is no amount.
    public static func bitcoin(_ text: String, option: String = "--amount") throws(CLIError) -> Amount {
        let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw CLIError(
                .usage,
                "\(option) \(text) has no unit: write \(trimmed)btc for bitcoin or \(trimmed)sat for satoshis")
        }
        do { return try Amount(string: text) } catch {
            throw CLIError(.invalidInput, "invalid \(option) '\(text)': \(reason(error))")
        }
    }

    /// A readable reason for an amount that does not parse.
    public static func reason(_ error: AmountError) -> String {
        switch error {
        case .invalidFormat: "not an amount (write 0.001btc or 100000sat)"
        case .tooManyDecimals(let n): "too many decimals (\(n); BTC has at most 8, sat none)"
        case .negative: "negative"
        case .exceedsMaxMoney: "more than 21,000,000 BTC"
        }
    }
}
