import BitcoinCrypto

/// Errors from BIP327 MuSig2 key aggregation and the BIP328 synthetic xpub of an aggregate key.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0327.mediawiki
public enum MuSigError: Error, Equatable, Sendable {
    /// KeyAgg was given no keys.
    case noParticipants
    /// The participant key at `index` is no valid plain (33-byte compressed) public key; BIP327 blames that signer.
    case invalidParticipant(index: Int, KeyError)
    /// The weighted sum of the keys is the point at infinity, or a coefficient is zero (both ~2^-128 events unless
    /// the keys were chosen to cancel out).
    case aggregateAtInfinity
}
