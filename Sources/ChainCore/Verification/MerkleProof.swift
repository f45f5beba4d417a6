import Bitcoin
import BitcoinCrypto

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
        guard position >= 0, position < (1 << 30) else { throw .protocolViolation("merkle position \(position)") }
        var branch: [[UInt8]] = []
        for hex in displayHex {
            guard let bytes = try? [UInt8](hex: hex), bytes.count == 32 else {
                throw .protocolViolation("merkle branch hash '\(hex.prefix(70))' is not 32 bytes of hex")
            }
            branch.append(bytes.reversed())
        }
        self.init(position: position, branch: branch)
    }

    /// The root this branch gives for `txid`.
    public func root(for txid: Txid) -> [UInt8] {
        var hash = txid.bytes
        var index = position
        for sibling in branch {
            hash = index & 1 == 1 ? SHA256.doubleHash(sibling + hash) : SHA256.doubleHash(hash + sibling)
            index >>= 1
        }
        return hash
    }

    /// Checks that `txid` is in the block of `header`.
    ///
    /// - Throws: `ChainError.verificationFailed`.
    public func verify(txid: Txid, in header: BlockHeader) throws(ChainError) {
        // A branch longer than any block could need, or a position beyond it, is a malformed proof.
        guard branch.count <= 32, position >> branch.count == 0 else {
            throw .verificationFailed("merkle proof of \(txid) has position \(position) beyond its branch")
        }
        guard root(for: txid) == header.merkleRoot else {
            throw .verificationFailed("merkle proof of \(txid) does not match block \(header.hashHex)")
        }
    }
}
