import Bitcoin
import BitcoinCrypto
import Codecs

/// A merkle branch from a transaction to its block's merkle root (Electrum `get_merkle`, Esplora `merkle-proof`).
public struct MerkleProof: Sendable, Equatable {
    /// The transaction's position in the block.
    public var position: Int
    /// The sibling hashes from the leaf up, internal byte order.
    public var branch: [[UInt8]]

    public init(position: Int, branch: [[UInt8]]) {
        self.position = position
        self.branch = branch
    }

    /// Parses the server form: hashes as display-order hex.
    ///
    /// - Throws: `ChainError.protocolViolation` for malformed hashes or a negative position.
    public init(position: Int, displayHex: [String]) throws(ChainError) {
        var branch: [[UInt8]] = []
        branch.reserveCapacity(displayHex.count)
        for hex in displayHex {
            let decoded = Result { () throws(HexError) in try Hex.decode(hex, reversed: true) }
            branch.append(try Self.branchHash(decoded, hex: hex))
        }
        try self.init(checkedPosition: position, branch: branch)
    }

    /// A proof whose position is checked as the server form's is.
    ///
    /// - Throws: `ChainError.protocolViolation` for a negative position or one beyond 2^30.
    public init(checkedPosition position: Int, branch: [[UInt8]]) throws(ChainError) {
        guard position >= 0, position < (1 << 30) else { throw .protocolViolation("merkle position \(position)") }
        self.init(position: position, branch: branch)
    }

    /// One branch hash of the server form, its display-order hex decoded in reverse (`Hex.decode(_:reversed: true)`):
    /// the hash in internal byte order.
    ///
    /// - Throws: `ChainError.protocolViolation` when it is not 32 bytes of hex.
    public static func branchHash(_ decoded: Result<[UInt8], HexError>, hex: @autoclosure () -> String)
        throws(ChainError) -> [UInt8]
    {
        guard case .success(let bytes) = decoded, bytes.count == 32 else {
            throw .protocolViolation("merkle branch hash '\(hex().prefix(70))' is not 32 bytes of hex")
        }
        return bytes
    }

    /// The root this branch gives for `txid`.
    public func root(for txid: Txid) -> [UInt8] {
        var hash = txid.bytes
        var index = position
        for sibling in branch {
            hash = index & 1 == 1 ? Self.node(sibling, hash) : Self.node(hash, sibling)
            index >>= 1
        }
        return hash
    }

    /// Checks that `txid` is in the block of `header`.
    ///
    /// - Throws: `ChainError.verificationFailed`.
    public func verify(txid: Txid, in header: BlockHeader) throws(ChainError) {
        var nodes = MerkleNodes()
        try verify(txid: txid, in: header, nodes: &nodes)
    }

    /// `verify(txid:in:)`, sharing the work of the proofs of one block.
    ///
    /// `nodes` holds the tree's nodes that earlier proofs of this block proved to lead to its root, and a proof that
    /// reaches one of them (at the same depth) is proven there, its upper levels not hashed again. A proof whose node
    /// differs from a proven one fails, as it would at the root. Issue 33: the proofs of a sync's transactions, a
    /// hundred a block in a batch, hashed the same upper nodes once each (14% of the sync's instructions).
    ///
    /// - Throws: `ChainError.verificationFailed`.
    public func verify(txid: Txid, in header: BlockHeader, nodes: inout MerkleNodes) throws(ChainError) {
        // A branch longer than any block could need, or a position beyond it, is a malformed proof.
        guard branch.count <= 32, position >> branch.count == 0 else {
            throw .verificationFailed("merkle proof of \(txid) has position \(position) beyond its branch")
        }
        let shared = nodes.depth == nil || nodes.depth == branch.count
        var hash = txid.bytes
        var index = position
        var path: [(key: Int, hash: [UInt8])] = []
        path.reserveCapacity(branch.count)
        for (level, sibling) in branch.enumerated() {
            let key = MerkleNodes.key(level: level, index: index)
            if shared, let proven = nodes.proven[key] {
                guard proven == hash else { throw mismatch(txid, header) }
                nodes.add(path, depth: branch.count)
                return
            }
            path.append((key, hash))
            hash = index & 1 == 1 ? Self.node(sibling, hash) : Self.node(hash, sibling)
            index >>= 1
        }
        guard hash == header.merkleRoot else { throw mismatch(txid, header) }
        if shared { nodes.add(path, depth: branch.count) }
    }

    /// The parent of two tree nodes: SHA256d of their concatenation (hashed in two parts, not concatenated first).
    static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        left.withUnsafeBytes { hasher.update($0) }
        right.withUnsafeBytes { hasher.update($0) }
        // The first digest on the stack, only the second made an array.
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digest) { raw in
            hasher.finalize(into: raw)
            var second = SHA256()
            second.update(UnsafeRawBufferPointer(raw))
            return second.finalize()
        }
    }

    private func mismatch(_ txid: Txid, _ header: BlockHeader) -> ChainError {
        .verificationFailed("merkle proof of \(txid) does not match block \(header.hashHex)")
    }
}

/// The nodes of one block's merkle tree proven to lead to its root by the proofs checked so far
/// (`MerkleProof.verify(txid:in:nodes:)`), with the depth of those proofs.
public struct MerkleNodes: Sendable {
    /// Node hashes by level (0: the transactions) and index at that level.
    fileprivate var proven: [Int: [UInt8]] = [:]
    /// The branch length of the proofs that proved them (every leaf of a block's tree is at the same depth).
    fileprivate var depth: Int?

    public init() {}

    fileprivate static func key(level: Int, index: Int) -> Int { index << 6 | level }

    fileprivate mutating func add(_ path: [(key: Int, hash: [UInt8])], depth: Int) {
        self.depth = depth
        for node in path { proven[node.key] = node.hash }
    }
}
