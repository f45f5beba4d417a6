import BitcoinCrypto

/// A taproot script-path control block: leaf version with the output key's parity, the internal key, and the
/// merkle path of the leaf.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#script-validation-rules
public struct ControlBlock: Hashable, Sendable {
    /// The leaf version of the spent leaf.
    public let leafVersion: UInt8
    /// Whether the output key Q has odd y.
    public let outputKeyParityIsOdd: Bool
    /// The internal key P.
    public let internalKey: XOnlyPublicKey
    /// The sibling hashes from the leaf up to the root.
    public let path: [TapNodeHash]

    /// A control block from its parts.
    ///
    /// - Throws: `TaprootError.invalidLeafVersion` or `.treeTooDeep` (over 128 hashes).
    public init(
        leafVersion: UInt8, outputKeyParityIsOdd: Bool, internalKey: XOnlyPublicKey, path: [TapNodeHash]
    ) throws(TaprootError) {
        guard leafVersion & 1 == 0 else { throw .invalidLeafVersion(leafVersion) }
        guard path.count <= TapTree.maxDepth else { throw .treeTooDeep(path.count) }
        self.leafVersion = leafVersion
        self.outputKeyParityIsOdd = outputKeyParityIsOdd
        self.internalKey = internalKey
        self.path = path
    }

    /// Parses a serialized control block (33 + 32·m bytes, m ≤ 128).
    ///
    /// - Throws: `TaprootError.invalidControlBlockLength` or `.invalidInternalKey`.
    public init(serialized bytes: some Collection<UInt8>) throws(TaprootError) {
        let input = Array(bytes)
        guard input.count >= 33, (input.count - 33) % 32 == 0, (input.count - 33) / 32 <= TapTree.maxDepth else {
            throw .invalidControlBlockLength(input.count)
        }
        guard let key = try? XOnlyPublicKey(serialized: input[1..<33]) else { throw .invalidInternalKey }
        self.leafVersion = input[0] & 0xFE
        self.outputKeyParityIsOdd = input[0] & 1 == 1
        self.internalKey = key
        self.path = stride(from: 33, to: input.count, by: 32).map { TapNodeHash(unchecked: Array(input[$0..<$0 + 32])) }
    }

    /// The serialized control block.
    public func serialized() -> [UInt8] {
        var out = [leafVersion | (outputKeyParityIsOdd ? 1 : 0)] + internalKey.bytes
        for hash in path { out += hash.bytes }
        return out
    }

    /// The merkle root that `leaf` and this path commit to.
    public func merkleRoot(for leaf: TapLeaf) -> TapNodeHash {
        path.reduce(leaf.hash) { .branch($0, $1) }
    }
}
