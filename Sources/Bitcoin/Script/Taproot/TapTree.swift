/// A taproot script tree: leaves joined by branches (a binary tree, at most 128 levels deep).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
public indirect enum TapTree: Hashable, Sendable {
    /// A leaf script.
    case leaf(TapLeaf)
    /// A branch with two subtrees.
    case branch(TapTree, TapTree)

    /// The maximum depth of a leaf (the control block holds at most 128 hashes).
    public static let maxDepth = 128

    /// The node hash of this tree (its merkle root).
    public var hash: TapNodeHash {
        switch self {
        case .leaf(let leaf): leaf.hash
        case .branch(let left, let right): .branch(left.hash, right.hash)
        }
    }

    /// Every leaf, left to right, with its merkle path: the sibling hashes from the leaf up to the root.
    public var leavesWithPaths: [(leaf: TapLeaf, path: [TapNodeHash])] {
        switch self {
        case .leaf(let leaf):
            return [(leaf, [])]
        case .branch(let left, let right):
            let leftHash = left.hash
            let rightHash = right.hash
            return left.leavesWithPaths.map { ($0.leaf, $0.path + [rightHash]) }
                + right.leavesWithPaths.map { ($0.leaf, $0.path + [leftHash]) }
        }
    }

    /// The depth of the deepest leaf (0 for a single leaf).
    public var depth: Int {
        switch self {
        case .leaf: 0
        case .branch(let left, let right): 1 + Swift.max(left.depth, right.depth)
        }
    }
}
