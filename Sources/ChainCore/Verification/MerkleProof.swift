import Bitcoin
import BitcoinCrypto
import Codecs

/// A merkle branch from a transaction to its block's merkle root (Electrum `get_merkle`, Esplora `merkle-proof`).
public struct MerkleProof: Sendable, Equatable {
    /// The transaction's position in the block.
    public var position: Int
    /// The sibling hashes from the leaf up, internal byte order, end to end (32 bytes each): one array for a proof,
    /// not one a hash (a sync checks 5,000 proofs of about eight hashes).
    private(set) var hashes: [UInt8]
    /// The branch as given when a hash in it is not 32 bytes: such a proof never verifies.
    private var malformed: [[UInt8]]?

    /// The sibling hashes from the leaf up, internal byte order.
    public var branch: [[UInt8]] {
        malformed ?? stride(from: 0, to: hashes.count, by: 32).map { Array(hashes[$0..<($0 + 32)]) }
    }

    /// A proof of `branch`'s hashes; one that is not 32 bytes makes a proof that never verifies.
    public init(position: Int, branch: [[UInt8]]) {
        self.position = position
        if branch.allSatisfy({ $0.count == 32 }) {
            hashes = Array(branch.joined())
        } else {
            hashes = []
            malformed = branch
        }
    }

    /// A proof of the hashes of `hashes`, 32 bytes each, end to end, its position checked as the server form's is.
    ///
    /// - Throws: `ChainError.protocolViolation` for a negative position or one beyond 2^30.
    public init(checkedPosition position: Int, hashes: [UInt8]) throws(ChainError) {
        precondition(hashes.count % 32 == 0, "merkle branch hashes are 32 bytes each")
        guard position >= 0, position < (1 << 30) else { throw .protocolViolation("merkle position \(position)") }
        self.position = position
        self.hashes = hashes
    }

    /// The number of hashes in the branch.
    var depth: Int { malformed?.count ?? hashes.count / 32 }

    /// Parses the server form: hashes as display-order hex.
    ///
    /// - Throws: `ChainError.protocolViolation` for malformed hashes or a negative position.
    public init(position: Int, displayHex: [String]) throws(ChainError) {
        guard position >= 0, position < (1 << 30) else { throw .protocolViolation("merkle position \(position)") }
        var hashes: [UInt8] = []
        hashes.reserveCapacity(32 * displayHex.count)
        for hex in displayHex {
            let decoded = Result { () throws(HexError) in try Hex.decode(hex, reversed: true) }
            hashes += try Self.branchHash(decoded, hex: hex)
        }
        try self.init(checkedPosition: position, hashes: hashes)
    }

    /// One branch hash of the server form, its display-order hex decoded in reverse (`Hex.decode(_:reversed: true)`):
    /// the hash in internal byte order.
    ///
    /// - Throws: `ChainError.protocolViolation` when it is not 32 bytes of hex.
    public static func branchHash(_ decoded: Result<[UInt8], HexError>, hex: @autoclosure () -> String)
        throws(ChainError) -> [UInt8]
    {
        guard case .success(let bytes) = decoded, bytes.count == 32 else { throw malformedHash(hex()) }
        return bytes
    }

    /// The error for a branch hash of the server form that is not 32 bytes of hex.
    public static func malformedHash(_ hex: String) -> ChainError {
        .protocolViolation("merkle branch hash '\(hex.prefix(70))' is not 32 bytes of hex")
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

    /// The parent of `hash` and the branch's hash at `level`, `hash` on the right when `right`.
    private func parent(_ hash: [UInt8], level: Int, right: Bool) -> [UInt8] {
        hashes.withUnsafeBytes { all in
            let sibling = UnsafeRawBufferPointer(rebasing: all[(32 * level)..<(32 * level + 32)])
            return hash.withUnsafeBytes { own in right ? Self.node(sibling, own) : Self.node(own, sibling) }
        }
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
        let depth = depth
        guard depth <= 32, position >> depth == 0 else {
            throw .verificationFailed("merkle proof of \(txid) has position \(position) beyond its branch")
        }
        // A hash that is not 32 bytes is no tree node.
        guard malformed == nil else { throw mismatch(txid, header) }
        let shared = nodes.depth == nil || nodes.depth == depth
        var hash = txid.bytes
        var index = position
        var path: [(key: Int, hash: [UInt8])] = []
        path.reserveCapacity(depth)
        for level in 0..<depth {
            let key = MerkleNodes.key(level: level, index: index)
            if shared, let proven = nodes.proven[key] {
                guard proven == hash else { throw mismatch(txid, header) }
                nodes.add(path, depth: depth)
                return
            }
            path.append((key, hash))
            hash = parent(hash, level: level, right: index & 1 == 1)
            index >>= 1
        }
        guard hash == header.merkleRoot else { throw mismatch(txid, header) }
        if shared { nodes.add(path, depth: depth) }
    }

    /// The parent of two tree nodes: SHA256d of their concatenation (hashed in two parts, not concatenated first).
    static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        left.withUnsafeBytes { l in right.withUnsafeBytes { r in node(l, r) } }
    }

    /// `node(_:_:)` of two nodes' bytes.
    static func node(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(left)
        hasher.update(right)
        return hasher.finalizeDoubled()
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
