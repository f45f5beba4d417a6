/// A master-key or parent-key fingerprint: the first four bytes of HASH160 of the public key.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#key-identifiers
public struct KeyFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The fingerprint as a big-endian integer (how CBOR carries it).
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The 8 lower-case hex digits used in descriptors, such as `37b5eed4`.
    public var description: String {
        TextCodec.hexString([
            UInt8(rawValue >> 24), UInt8((rawValue >> 16) & 0xFF), UInt8((rawValue >> 8) & 0xFF),
            UInt8(rawValue & 0xFF),
        ])
    }
}
