import BitcoinCrypto

/// A BIP32 key fingerprint: the first 4 bytes of HASH160 of a compressed public key, shown as 8 hex digits.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#key-identifiers
public struct Fingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The 4 bytes as a big-endian integer.
    public let value: UInt32

    /// The zero fingerprint of a master key's parent.
    public static let zero = Fingerprint(value: 0)

    /// A fingerprint from its big-endian integer value.
    public init(value: UInt32) { self.value = value }

    /// A fingerprint from exactly 4 bytes.
    ///
    /// - Throws: `BIP32Error.invalidFingerprint` when there are not 4 bytes.
    public init(serialized bytes: some Collection<UInt8>) throws(BIP32Error) {
        let input = Array(bytes)
        guard input.count == 4 else { throw .invalidFingerprint(input.hexString) }
        self.value = input.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Parses 8 hex digits (upper or lower case).
    ///
    /// - Throws: `BIP32Error.invalidFingerprint` for anything else.
    public init(hex: String) throws(BIP32Error) {
        guard hex.utf8.count == 8, let bytes = try? [UInt8](hex: hex) else { throw .invalidFingerprint(hex) }
        try self.init(serialized: bytes)
    }

    /// The fingerprint of `publicKey`: HASH160(compressed key)[0..<4].
    public init(of publicKey: PublicKey) {
        let hash = Hash160.hash(publicKey.compressed)
        self.value = hash.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The 4 bytes, big-endian.
    public func serialized() -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The 8 lower-case hex digits.
    public var hexString: String { serialized().hexString }

    public var description: String { hexString }
}
