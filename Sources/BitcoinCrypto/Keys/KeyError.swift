/// Errors from parsing, deriving, tweaking or using secp256k1 keys and signatures.
public enum KeyError: Error, Equatable, Sendable {
    /// A key or signature has the wrong number of bytes.
    case invalidLength(expected: Int, actual: Int)
    /// The 32 bytes are zero or not below the curve order, so they are no private key.
    case invalidPrivateKey
    /// The bytes do not encode a point on secp256k1 (or use an unknown prefix byte).
    case notOnCurve
    /// A tweak is out of range, or adding it gave the point at infinity or a zero key (BIP32's ~2^-127 case).
    case invalidTweak
    /// A DER signature is not strictly encoded (BIP66).
    case invalidDER
    /// A compact signature's r or s is not below the curve order.
    case invalidSignature
    /// Combining public keys gave the point at infinity.
    case pointAtInfinity
}
