import Bitcoin
import BitcoinCrypto
import Testing

@testable import ChainCore

/// `ProofVerifier` on a small regtest chain mined here: each check fails on its attack (a wrong merkle branch, a header
/// below its target, a broken link, a transaction that is not the one asked for) and passes on the honest data.
@Suite("Proof checks: merkle branches, proof of work, header links")
struct ProofVerifierTests {
    static let regtestBits: UInt32 = 0x207f_ffff

    /// An 80-byte header; `mined` searches the nonce until the hash meets the regtest target (or, with `mined: false`,
    /// until it misses it).
    static func header(previous: [UInt8], merkleRoot: [UInt8], time: UInt32, mined: Bool = true) throws -> BlockHeader {
        func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        for nonce in UInt32(0)..<10_000 {
            let header = try BlockHeader(
                serialized: le(0x2000_0000) + previous + merkleRoot + le(time) + le(regtestBits) + le(nonce))
            let meets = (try? header.verifyProofOfWork(network: .regtest)) != nil
            if meets == mined { return header }
        }
        throw ChainError.verificationFailed("no nonce found")
    }

    /// A transaction with one OP_RETURN output (script `6a`).
    static var tx0: Transaction {
        get throws {
            Transaction(
                inputs: [
                    TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 1, count: 32)), vout: 0))
                ],
                outputs: [TxOut(value: .zero, scriptPubKey: Script([0x6a]))])
        }
    }

    struct Chain {
        var genesis: BlockHeader
        var block1: BlockHeader
        var txids: [Txid]
    }

    /// Genesis (empty-ish root), then block 1 holding two transactions.
    static func chain() throws -> Chain {
        let genesis = try header(
            previous: [UInt8](repeating: 0, count: 32), merkleRoot: [UInt8](repeating: 7, count: 32), time: 1)
        let a = try Txid(bytes: SHA256.doubleHash([1]))
        let b = try Txid(bytes: SHA256.doubleHash([2]))
        let root = SHA256.doubleHash(a.bytes + b.bytes)
        let block1 = try header(previous: genesis.hash, merkleRoot: root, time: 2)
        return Chain(genesis: genesis, block1: block1, txids: [a, b])
    }

    @Test("honest data passes: both leaves prove against a header linked to its predecessor")
    func honestChain() throws {
        let chain = try Self.chain()
        let verifier = ProofVerifier(network: .regtest)
        let block = try verifier.verifyHeader(chain.block1, previous: chain.genesis, height: 1)
        try MerkleProof(position: 0, branch: [chain.txids[1].bytes]).verify(txid: chain.txids[0], in: block)
        try MerkleProof(position: 1, branch: [chain.txids[0].bytes]).verify(txid: chain.txids[1], in: block)
    }

    @Test("a wrong merkle branch, or the right branch at the wrong position, fails")
    func wrongMerkleBranch() throws {
        let chain = try Self.chain()
        let wrong = [UInt8](repeating: 0xEE, count: 32)
        #expect(throws: ChainError.self) {
            try MerkleProof(position: 0, branch: [wrong]).verify(txid: chain.txids[0], in: chain.block1)
        }
        #expect(throws: ChainError.self) {
            try MerkleProof(position: 1, branch: [chain.txids[1].bytes]).verify(txid: chain.txids[0], in: chain.block1)
        }
        // The server form refuses a hash that is not 32 bytes before any hashing.
        #expect(throws: ChainError.self) { try MerkleProof(position: 0, displayHex: ["abcd"]) }
        #expect(throws: ChainError.self) { try MerkleProof(position: -1, displayHex: []) }
    }

    @Test("proofs of one block sharing proven nodes: the honest ones pass, a forged one fails as it does alone")
    func sharedNodes() throws {
        // Four leaves: root = H(H(a|b) | H(c|d)).
        let leaves = try (1...4).map { try Txid(bytes: SHA256.doubleHash([UInt8($0)])) }
        let ab = SHA256.doubleHash(leaves[0].bytes + leaves[1].bytes)
        let cd = SHA256.doubleHash(leaves[2].bytes + leaves[3].bytes)
        let genesis = try Self.header(
            previous: [UInt8](repeating: 0, count: 32), merkleRoot: [UInt8](repeating: 7, count: 32), time: 1)
        let block = try Self.header(previous: genesis.hash, merkleRoot: SHA256.doubleHash(ab + cd), time: 2)
        let branches = [
            [leaves[1].bytes, cd], [leaves[0].bytes, cd], [leaves[3].bytes, ab], [leaves[2].bytes, ab],
        ]
        var nodes = MerkleNodes()
        for (position, txid) in leaves.enumerated() {
            try MerkleProof(position: position, branch: branches[position]).verify(txid: txid, in: block, nodes: &nodes)
        }
        // A transaction that is not in the block, at a proven position with the honest branch: refused with the
        // shared nodes and without them alike.
        let stranger = try Txid(bytes: SHA256.doubleHash([9]))
        for position in 0..<4 {
            #expect(throws: ChainError.self) {
                try MerkleProof(position: position, branch: branches[position])
                    .verify(txid: stranger, in: block, nodes: &nodes)
            }
            #expect(throws: ChainError.self) {
                try MerkleProof(position: position, branch: branches[position]).verify(txid: stranger, in: block)
            }
        }
        // A leaf at another leaf's position: refused.
        #expect(throws: ChainError.self) {
            try MerkleProof(position: 2, branch: [leaves[2].bytes, ab]).verify(
                txid: leaves[3], in: block, nodes: &nodes)
        }
        // A proof of another depth is checked up to the root, as on its own: the root's two halves pass as a
        // one-level tree would (they do without shared nodes too), a wrong one-level branch fails.
        try MerkleProof(position: 1, branch: [ab]).verify(txid: try Txid(bytes: cd), in: block, nodes: &nodes)
        try MerkleProof(position: 1, branch: [ab]).verify(txid: try Txid(bytes: cd), in: block)
        #expect(throws: ChainError.self) {
            try MerkleProof(position: 1, branch: [cd]).verify(txid: try Txid(bytes: ab), in: block, nodes: &nodes)
        }
        // Control: the honest proofs still pass after the refusals, with the shared nodes and on their own.
        for (position, txid) in leaves.enumerated() {
            try MerkleProof(position: position, branch: branches[position]).verify(txid: txid, in: block, nodes: &nodes)
            try MerkleProof(position: position, branch: branches[position]).verify(txid: txid, in: block)
        }
    }

    @Test("a header whose hash is above its target fails; so does a target easier than the network allows")
    func headerBelowTarget() throws {
        let chain = try Self.chain()
        let weak = try Self.header(
            previous: chain.genesis.hash, merkleRoot: chain.block1.merkleRoot, time: 2, mined: false)
        let verifier = ProofVerifier(network: .regtest)
        #expect(throws: ChainError.self) { try verifier.verifyHeader(weak, previous: chain.genesis, height: 1) }
        // The mined header passes on regtest (the control) but claims too little work for mainnet.
        #expect(throws: Never.self) { try chain.block1.verifyProofOfWork(network: .regtest) }
        #expect(throws: ChainError.self) {
            try ProofVerifier(network: .main).verifyHeader(chain.block1, previous: chain.genesis, height: 1)
        }
    }

    @Test("a header that does not build on the one before it fails; a missing predecessor fails")
    func brokenLink() throws {
        let chain = try Self.chain()
        let stranger = try Self.header(
            previous: [UInt8](repeating: 9, count: 32), merkleRoot: chain.block1.merkleRoot, time: 3)
        let verifier = ProofVerifier(network: .regtest)
        #expect(throws: ChainError.self) { try verifier.verifyHeader(stranger, previous: chain.genesis, height: 1) }
        #expect(throws: ChainError.self) { try verifier.verifyHeader(chain.block1, previous: nil, height: 1) }
        #expect(throws: ChainError.self) { try verifier.verifyHeader(chain.genesis, previous: chain.block1, height: 1) }
    }

    @Test("a transaction is accepted only under its own txid, and a history entry must touch the script")
    func transactionAndHistory() throws {
        let verifier = ProofVerifier(network: .regtest)
        let tx = try Self.tx0
        let raw = tx.serialized()
        #expect(try verifier.verifyTransaction(raw: raw, claimed: tx.txid) == tx)
        let other = try Txid(bytes: [UInt8](repeating: 3, count: 32))
        #expect(throws: ChainError.self) { try verifier.verifyTransaction(raw: raw, claimed: other) }
        #expect(throws: ChainError.self) { try verifier.verifyTransaction(raw: [1, 2, 3], claimed: other) }
        let entries = [HistoryEntry(txid: tx.txid, height: 5)]
        try verifier.verifyHistory(script: Script([0x6a]), entries: entries) { _ in tx }
        #expect(throws: ChainError.self) {
            try verifier.verifyHistory(script: Script([0x51]), entries: entries) { _ in tx }
        }
    }
}

/// `ReplyChecker`: a server's numbers become `ChainError.invalidField` naming server and field, never a trap.
@Suite("Checked conversion of server numbers")
struct ReplyCheckerTests {
    let checker = ReplyChecker(server: "electrum://example:50001")

    @Test("heights, vouts and counts out of range are named errors; in range they pass")
    func integers() throws {
        #expect(try checker.height(.number(840_000), "height") == 840_000)
        #expect(try checker.vout(.number(4_294_967_295), "vout") == UInt32.max)
        #expect(
            throws: ChainError.invalidField(server: "electrum://example:50001", field: "vout", value: "-1")
        ) { try checker.vout(.number(-1), "vout") }
        #expect(throws: ChainError.self) { try checker.vout(.number(4_294_967_296), "vout") }
        #expect(throws: ChainError.self) { try checker.height(.number(1e300), "height") }
        #expect(throws: ChainError.self) { try checker.height(.number(1.5), "height") }
        #expect(throws: ChainError.self) { try checker.height(.string("12"), "height") }
        #expect(throws: ChainError.self) { try checker.height(nil, "height") }
        #expect(throws: ChainError.self) { try checker.count(.number(2_147_483_648), "pos") }
    }

    @Test("fee rates: BTC/kvB scaled and floored at 1 sat/vB; none for -1; refused when absurd")
    func feeRates() throws {
        #expect(try checker.feeRate(.number(0.0002), "fee", satsPerKVBPerUnit: 1e8) == FeeRate(satsPerKVB: 20_000))
        #expect(try checker.feeRate(.number(0.000001), "fee", satsPerKVBPerUnit: 1e8) == FeeRate(satsPerKVB: 1000))
        #expect(try checker.feeRate(.number(-1), "fee", satsPerKVBPerUnit: 1e8) == nil)
        #expect(throws: ChainError.self) { try checker.feeRate(.number(5), "fee", satsPerKVBPerUnit: 1e8) }
        #expect(throws: ChainError.self) { try checker.feeRate(.number(1e300), "fee", satsPerKVBPerUnit: 1e8) }
        #expect(throws: ChainError.self) { try checker.feeRate(.string("1"), "fee", satsPerKVBPerUnit: 1e8) }
    }

    @Test("the message names the server, the field and the value")
    func message() {
        let error = checker.invalid("get_history height", .number(-7))
        #expect(error.description == "electrum://example:50001 sent an invalid get_history height: -7")
        let none = ChainError.noFeeEstimate(server: "bitcoind://h:1", targetBlocks: 6)
        #expect(none.description.contains("--fee-rate"))
    }
}
