public import BitcoinCrypto

/// A JSON value from the signer's one strict parser (`StrictJSON`, in BitcoinCrypto so both chains and the signer
/// share it): number literals kept as text, members in order, a member named twice refused.
public typealias JSONValue = StrictJSON
