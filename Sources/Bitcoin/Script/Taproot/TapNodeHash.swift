import BitcoinCrypto

/// A node hash of a taproot script tree: a TapLeaf hash, a TapBranch hash, or the merkle root.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
public struct TapNodeHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 hash bytes.
    public let bytes: [UInt8]

    /// Takes 32 bytes as a tap node hash.
    ///
    /// - Throws: `TaprootError.invalidHashLength`.
    public init(bytes: some Collection<UInt8>) throws(TaprootError) {
        guard bytes.count == 32 else { throw .invalidHashLength(bytes.count) }
        self.bytes = Array(bytes)
    }

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// TapBranch of two children, hashed in lexicographic order.
    public static func branch(_ a: TapNodeHash, _ b: TapNodeHash) -> TapNodeHash {
        let (first, second) = a.bytes.lexicographicallyPrecedes(b.bytes) ? (a, b) : (b, a)
        return TapNodeHash(unchecked: TaggedHash.tapBranch.hash(first.bytes + second.bytes))
    }

    /// Lower-case hex of the hash.
    public var description: String { bytes.hexString }
}
