/// BIP340 tagged hashes: SHA-256(SHA-256(tag) ‖ SHA-256(tag) ‖ message), with the 64-byte prefix absorbed once.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0340.mediawiki#design
public struct TaggedHash: Sendable {
    /// The tag this hasher was made for.
    public let tag: String
    private let prefixed: SHA256

    /// A hasher for `tag`, with the tag prefix already absorbed.
    public init(tag: String) {
        self.tag = tag
        let tagHash = SHA256.hash(Array(tag.utf8))
        var hasher = SHA256()
        hasher.update(tagHash)
        hasher.update(tagHash)
        self.prefixed = hasher
    }

    /// A SHA-256 hasher with this tag's prefix absorbed, to feed a long message piece by piece.
    public func hasher() -> SHA256 { prefixed }

    /// The tagged hash of `message`.
    public func hash(_ message: some Sequence<UInt8>) -> [UInt8] {
        var hasher = prefixed
        hasher.update(message)
        return hasher.finalize()
    }

    /// BIP341 `TapLeaf`.
    public static let tapLeaf = TaggedHash(tag: "TapLeaf")
    /// BIP341 `TapBranch`.
    public static let tapBranch = TaggedHash(tag: "TapBranch")
    /// BIP341 `TapTweak`.
    public static let tapTweak = TaggedHash(tag: "TapTweak")
    /// BIP341 `TapSighash`.
    public static let tapSighash = TaggedHash(tag: "TapSighash")
}
