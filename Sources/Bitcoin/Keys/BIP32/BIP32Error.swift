/// Errors from parsing, serializing or deriving BIP32 extended keys, child numbers and derivation paths.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki
public enum BIP32Error: Error, Equatable, Sendable {
    /// A seed outside BIP32's 16…64 bytes.
    case invalidSeedLength(Int)
    /// Base58 text with a character outside the alphabet, or too short to hold a checksum.
    case invalidBase58(EncodingError)
    /// The base58check checksum does not match.
    case invalidChecksum
    /// A serialized extended key that is not 78 bytes.
    case invalidLength(Int)
    /// Version bytes that belong to no known extended key format (BIP32 or SLIP-132).
    case unknownVersion(UInt32)
    /// Public version bytes (xpub, zpub, …) on key data that holds a private key.
    case publicVersionWithPrivateKey
    /// Private version bytes (xprv, zprv, …) on key data that holds a public key.
    case privateVersionWithPublicKey
    /// Private key data whose first byte is not 0x00 (the byte found).
    case invalidPrivateKeyPrefix(UInt8)
    /// Public key data whose first byte is not 0x02 or 0x03 (the byte found).
    case invalidPublicKeyPrefix(UInt8)
    /// The public key is not a point on secp256k1.
    case invalidPublicKey
    /// The private key is 0 or not below the curve order n.
    case privateKeyOutOfRange
    /// A master key (depth 0) with a non-zero parent fingerprint.
    case zeroDepthWithParentFingerprint
    /// A master key (depth 0) with a non-zero child number.
    case zeroDepthWithChildNumber
    /// A private key was expected (an xprv-type string) but a public one was given, or the other way round.
    case unexpectedKeyKind(expectedPrivate: Bool)
    /// Hardened derivation was asked of a public key (CKDpub exists only for normal children).
    case hardenedDerivationFromPublicKey(ChildNumber)
    /// Deriving a child would take the depth past 255.
    case depthOverflow
    /// The child key is invalid (BIP32's ~2^-127 case: the tweak is not below n or the key is zero/infinity).
    case invalidChild(ChildNumber)
    /// A derivation path with more than 255 levels.
    case pathTooDeep(levels: Int)
    /// A path component that is not a decimal index with an optional `h`, `H` or `'` marker, with its position.
    case invalidPathComponent(String, position: Int)
    /// A child index that does not fit below 2^31, with its position in the path.
    case indexOutOfRange(String, position: Int)
    /// A fingerprint that is not 8 hex digits (4 bytes).
    case invalidFingerprint(String)
}
