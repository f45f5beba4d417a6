/// Errors from parsing a BIP21 URI.
public enum BIP21Error: Error, Equatable, Sendable {
    /// The text does not start with `bitcoin:` followed by something.
    case notBitcoinURI
    /// The address part does not look like a Bitcoin address.
    case invalidAddress(String)
    /// The amount is not a plain decimal BTC value within the money supply.
    case invalidAmount(String)
    /// A `%` escape that is not two hex digits, or escapes that are not UTF-8.
    case invalidPercentEncoding(String)
    /// The same parameter twice.
    case duplicateParameter(String)
    /// A `req-` parameter this parser does not know; BIP21 requires rejecting the URI.
    case unknownRequiredParameter(String)
}
