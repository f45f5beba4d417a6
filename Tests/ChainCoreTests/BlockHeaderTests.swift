import Bitcoin
import BitcoinCrypto
import Testing

@testable import ChainCore

/// SPV checks on real mainnet headers: the genesis block and block 1, whose hashes and merkle roots are public.
@Suite("Block headers: proof of work and links (Bitcoin mainnet genesis and block 1)")
struct BlockHeaderTests {
    // https://en.bitcoin.it/wiki/Genesis_block — the 80-byte header of block 0.
    static let genesisHex =
        "0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c"
    // Block 1 (00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048).
    static let block1Hex =
        "010000006fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000982051fd1e4ba744bbbe680e1fee14677ba1a3c3540bf7b1cdb606e857233e0e61bc6649ffff001d01e36299"

    @Test("the genesis header hashes to the known block hash and meets its target")
    func genesis() throws {
        let header = try BlockHeader(hex: Self.genesisHex)
        #expect(header.hashHex == "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f")
        try header.verifyProofOfWork(network: .main, height: 0)
    }

    @Test("block 1 links to genesis; the reverse link fails")
    func link() throws {
        let genesis = try BlockHeader(hex: Self.genesisHex)
        let block1 = try BlockHeader(hex: Self.block1Hex)
        try block1.verifyLink(to: genesis, height: 1)
        #expect(throws: ChainError.self) { try genesis.verifyLink(to: block1, height: 1) }
        try ProofVerifier(network: .main).verifyHeader(block1, previous: genesis, height: 1)
    }

    @Test("a changed nonce breaks the proof of work")
    func tamperedNonce() throws {
        var bytes = try [UInt8](hex: Self.block1Hex)
        bytes[79] ^= 0x01
        let header = try BlockHeader(serialized: bytes)
        #expect(throws: ChainError.self) { try header.verifyProofOfWork(network: .main) }
    }

    @Test("a regtest-difficulty header is refused on mainnet and accepted on regtest when it meets its target")
    func powLimit() throws {
        // Grind a header with bits 0x207fffff (regtest's limit): about two tries.
        var bytes = [UInt8](repeating: 0, count: 80)
        bytes[0] = 0x20
        bytes[72...75] = [0xff, 0xff, 0x7f, 0x20]
        var nonce: UInt32 = 0
        var header = try BlockHeader(serialized: bytes)
        while (try? header.verifyProofOfWork(network: .regtest)) == nil {
            nonce += 1
            bytes[76] = UInt8(nonce & 0xff)
            bytes[77] = UInt8(nonce >> 8 & 0xff)
            header = try BlockHeader(serialized: bytes)
        }
        try header.verifyProofOfWork(network: .regtest)
        #expect(throws: ChainError.self) { try header.verifyProofOfWork(network: .main) }
    }

    @Test(
        "compact targets",
        arguments: [
            (UInt32(0x1d00_ffff), "00000000ffff0000000000000000000000000000000000000000000000000000"),
            (UInt32(0x207f_ffff), "7fffff0000000000000000000000000000000000000000000000000000000000"),
            (UInt32(0x0300_0001), "0000000000000000000000000000000000000000000000000000000000000001"),
        ])
    func targets(bits: UInt32, expected: String) throws {
        #expect(BlockHeader.target(bits: bits)?.hexString == expected)
    }

    @Test("negative, zero and overflowing targets are rejected")
    func badTargets() {
        #expect(BlockHeader.target(bits: 0x1d80_0000) == nil)
        #expect(BlockHeader.target(bits: 0x1d00_0000) == nil)
        #expect(BlockHeader.target(bits: 0x2200_ffff) == nil)
    }

    @Test("a header of the wrong length is refused")
    func length() {
        #expect(throws: ChainError.self) { try BlockHeader(serialized: [UInt8](repeating: 0, count: 79)) }
    }
}

/// Merkle proofs built here from known leaves, checked the way Electrum's `get_merkle` answers are.
@Suite("Merkle proofs (Electrum get_merkle form)")
struct MerkleProofTests {
    /// A block's merkle tree over `leaves` (internal byte order), and the branch of leaf `index`.
    static func tree(_ leaves: [[UInt8]], index: Int) -> (root: [UInt8], branch: [[UInt8]]) {
        var level = leaves
        var position = index
        var branch: [[UInt8]] = []
        while level.count > 1 {
            if level.count % 2 == 1, let last = level.last { level.append(last) }
            branch.append(level[position ^ 1])
            level = stride(from: 0, to: level.count, by: 2).map { SHA256.doubleHash(level[$0] + level[$0 + 1]) }
            position /= 2
        }
        return (level[0], branch)
    }

    static func header(merkleRoot: [UInt8]) throws -> BlockHeader {
        try BlockHeader(
            serialized: [1, 0, 0, 0] + [UInt8](repeating: 0, count: 32) + merkleRoot + [UInt8](repeating: 0, count: 12))
    }

    @Test("every leaf of a 7-transaction block proves; a wrong position or sibling fails", arguments: 0..<7)
    func proofs(index: Int) throws {
        let leaves = (0..<7).map { SHA256.hash([UInt8($0)]) }
        let (root, branch) = Self.tree(leaves, index: index)
        let header = try Self.header(merkleRoot: root)
        let txid = try Txid(bytes: leaves[index])
        let displayHex = branch.map { $0.reversed().hexString }
        try MerkleProof(position: index, displayHex: displayHex).verify(txid: txid, in: header)
        #expect(throws: ChainError.self) {
            try MerkleProof(position: (index + 1) % 7, displayHex: displayHex).verify(txid: txid, in: header)
        }
        var bad = branch
        bad[0][0] ^= 1
        #expect(throws: ChainError.self) {
            try MerkleProof(position: index, branch: bad).verify(txid: txid, in: header)
        }
    }

    @Test("a branch given end to end is the same proof; a hash not of 32 bytes never verifies", arguments: 0..<7)
    func flatHashes(index: Int) throws {
        let leaves = (0..<7).map { SHA256.hash([UInt8($0), 7]) }
        let (root, branch) = Self.tree(leaves, index: index)
        let header = try Self.header(merkleRoot: root)
        let txid = try Txid(bytes: leaves[index])
        let flat = try MerkleProof(checkedPosition: index, hashes: Array(branch.joined()))
        #expect(flat == MerkleProof(position: index, branch: branch) && flat.branch == branch)
        try flat.verify(txid: txid, in: header)
        #expect(flat.root(for: txid) == root)
        // Bad: the first hash one byte longer (its 32 bytes and the next hash's first byte), or one byte shorter.
        var longer = branch
        longer[0].append(0)
        var shorter = branch
        shorter[0].removeLast()
        for bad in [longer, shorter] {
            let proof = MerkleProof(position: index, branch: bad)
            #expect(proof.branch == bad)
            #expect(throws: ChainError.self) { try proof.verify(txid: txid, in: header) }
        }
        #expect(throws: ChainError.self) { try MerkleProof(checkedPosition: -1, hashes: Array(branch.joined())) }
    }

    @Test("mainnet block 1's single transaction is its own merkle root")
    func singleTransaction() throws {
        let header = try BlockHeader(hex: BlockHeaderTests.block1Hex)
        let txid = try Txid(hex: "0e3e2357e806b6cdb1f70b54c3a3a17b6714ee1f0e68bebb44a74b1efd512098")
        try MerkleProof(position: 0, branch: []).verify(txid: txid, in: header)
    }

    @Test("a position beyond the branch is malformed")
    func position() throws {
        let header = try BlockHeader(hex: BlockHeaderTests.block1Hex)
        let txid = try Txid(hex: "0e3e2357e806b6cdb1f70b54c3a3a17b6714ee1f0e68bebb44a74b1efd512098")
        #expect(throws: ChainError.self) { try MerkleProof(position: 2, branch: []).verify(txid: txid, in: header) }
    }
}
