import BitcoinCrypto

/// A taproot output built from an internal key and an optional script tree: the output key, and a control block
/// for every leaf.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
public struct TaprootSpendInfo: Sendable {
    /// The internal key P.
    public let internalKey: XOnlyPublicKey
    /// The script tree, if any.
    public let tree: TapTree?
    /// The merkle root of the tree, or nil for a key-path-only output.
    public let merkleRoot: TapNodeHash?
    /// The tweak t = hashTapTweak(P ‖ merkle root).
    public let tweak: [UInt8]
    /// The output key Q = P + t·G.
    public let outputKey: XOnlyPublicKey
    /// Whether Q has odd y.
    public let outputKeyParityIsOdd: Bool

    /// Computes the output key for `internalKey` and `tree`.
    ///
    /// - Throws: `TaprootError.treeTooDeep`, or `.invalidTweak` in the negligible case that tweaking fails.
    public init(internalKey: XOnlyPublicKey, tree: TapTree?) throws(TaprootError) {
        if let tree, tree.depth > TapTree.maxDepth { throw .treeTooDeep(tree.depth) }
        self.internalKey = internalKey
        self.tree = tree
        let root = tree?.hash
        self.merkleRoot = root
        self.tweak = TaprootTweak.tweak(internalKey: internalKey, merkleRoot: root?.bytes)
        guard let output = try? internalKey.taprootOutputKey(merkleRoot: root?.bytes) else { throw .invalidTweak }
        self.outputKey = output.key
        self.outputKeyParityIsOdd = output.parityIsOdd
    }

    /// The P2TR scriptPubKey `OP_1 <Q>`.
    public var scriptPubKey: Script { .p2tr(outputKey: outputKey) }

    /// Every leaf of the tree, left to right, with its control block.
    public var leafControlBlocks: [(leaf: TapLeaf, controlBlock: ControlBlock)] {
        guard let tree else { return [] }
        return tree.leavesWithPaths.compactMap { entry in
            guard
                let block = try? ControlBlock(
                    leafVersion: entry.leaf.version, outputKeyParityIsOdd: outputKeyParityIsOdd,
                    internalKey: internalKey, path: entry.path)
            else { return nil }
            return (entry.leaf, block)
        }
    }

    /// The control block for `leaf` (the first occurrence, if it appears twice), or nil when it is not in the tree.
    public func controlBlock(for leaf: TapLeaf) -> ControlBlock? {
        leafControlBlocks.first { $0.leaf == leaf }?.controlBlock
    }
}
