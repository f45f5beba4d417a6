import Bitcoin
import BitcoinCrypto
import Foundation
import TestSupport
import Testing

/// bitcoin/bips bip-0341/wallet-test-vectors.json (Tests/Vectors/sighash/bip341_wallet_test_vectors.json).
struct BIP341Vectors {
    struct ScriptPubKeyCase: CustomTestStringConvertible, Sendable {
        let index: Int
        let internalKey: String
        let tree: TapTree?
        let leafHashes: [String]
        let merkleRoot: String?
        let tweak: String
        let tweakedKey: String
        let scriptPubKey: String
        let address: String
        let controlBlocks: [String]
        var testDescription: String { "scriptPubKey[\(index)]" }
    }

    struct InputCase: CustomTestStringConvertible, Sendable {
        let transaction: Transaction
        let spent: [TxOut]
        let index: Int
        let privateKey: String
        let merkleRoot: String?
        let hashType: UInt32
        let internalKey: String
        let tweak: String
        let tweakedPrivateKey: String
        let sigMsg: String
        let sigHash: String
        let witness: [String]
        var testDescription: String { "input \(index), hash type 0x\(String(hashType, radix: 16))" }
    }

    static func root() throws -> [String: Any] {
        guard let root = try Vectors.anyJSON("sighash/bip341_wallet_test_vectors.json") as? [String: Any] else {
            throw Vectors.VectorsError.malformed(path: "bip341", detail: "root")
        }
        return root
    }

    static func tree(_ json: Any?) throws -> TapTree? {
        if json == nil || json is NSNull { return nil }
        if let leaf = json as? [String: Any], let script = leaf["script"] as? String,
            let version = leaf["leafVersion"] as? Int
        {
            return .leaf(try TapLeaf(script: Script(hex: script), version: UInt8(version)))
        }
        if let pair = json as? [Any], pair.count == 2, let left = try tree(pair[0]), let right = try tree(pair[1]) {
            return .branch(left, right)
        }
        return nil
    }

    static func scriptPubKeyCases() throws -> [ScriptPubKeyCase] {
        guard let cases = try root()["scriptPubKey"] as? [[String: Any]] else { return [] }
        return try cases.enumerated().map { index, entry in
            let given = entry["given"] as? [String: Any] ?? [:]
            let intermediary = entry["intermediary"] as? [String: Any] ?? [:]
            let expected = entry["expected"] as? [String: Any] ?? [:]
            return ScriptPubKeyCase(
                index: index, internalKey: given["internalPubkey"] as? String ?? "",
                tree: try tree(given["scriptTree"]), leafHashes: intermediary["leafHashes"] as? [String] ?? [],
                merkleRoot: intermediary["merkleRoot"] as? String, tweak: intermediary["tweak"] as? String ?? "",
                tweakedKey: intermediary["tweakedPubkey"] as? String ?? "",
                scriptPubKey: expected["scriptPubKey"] as? String ?? "",
                address: expected["bip350Address"] as? String ?? "",
                controlBlocks: expected["scriptPathControlBlocks"] as? [String] ?? [])
        }
    }

    static func keyPath() throws -> [String: Any] {
        guard let all = try root()["keyPathSpending"] as? [[String: Any]], let first = all.first else {
            throw Vectors.VectorsError.malformed(path: "bip341", detail: "keyPathSpending")
        }
        return first
    }

    static func unsignedTransaction() throws -> (Transaction, [TxOut]) {
        let given = try keyPath()["given"] as? [String: Any] ?? [:]
        let tx = try Transaction(serialized: TestHex.bytes(given["rawUnsignedTx"] as? String ?? ""))
        let utxos = given["utxosSpent"] as? [[String: Any]] ?? []
        let spent = try utxos.map { utxo in
            TxOut(
                value: try Amount(sats: UInt64(utxo["amountSats"] as? Int ?? -1)),
                scriptPubKey: try Script(hex: utxo["scriptPubKey"] as? String ?? ""))
        }
        return (tx, spent)
    }

    static func inputCases() throws -> [InputCase] {
        let (tx, spent) = try unsignedTransaction()
        let inputs = try keyPath()["inputSpending"] as? [[String: Any]] ?? []
        return inputs.map { entry in
            let given = entry["given"] as? [String: Any] ?? [:]
            let intermediary = entry["intermediary"] as? [String: Any] ?? [:]
            let expected = entry["expected"] as? [String: Any] ?? [:]
            return InputCase(
                transaction: tx, spent: spent, index: given["txinIndex"] as? Int ?? -1,
                privateKey: given["internalPrivkey"] as? String ?? "", merkleRoot: given["merkleRoot"] as? String,
                hashType: UInt32(given["hashType"] as? Int ?? -1),
                internalKey: intermediary["internalPubkey"] as? String ?? "",
                tweak: intermediary["tweak"] as? String ?? "",
                tweakedPrivateKey: intermediary["tweakedPrivkey"] as? String ?? "",
                sigMsg: intermediary["sigMsg"] as? String ?? "", sigHash: intermediary["sigHash"] as? String ?? "",
                witness: expected["witness"] as? [String] ?? [])
        }
    }
}

@Suite("BIP341 wallet test vectors")
struct BIP341Tests {
    @Test(
        "scriptPubKey: leaf hashes, merkle root, tweak, output key, address, control blocks",
        arguments: try BIP341Vectors.scriptPubKeyCases())
    func scriptPubKey(_ vector: BIP341Vectors.ScriptPubKeyCase) throws {
        let internalKey = try XOnlyPublicKey(serialized: TestHex.bytes(vector.internalKey))
        let info = try TaprootSpendInfo(internalKey: internalKey, tree: vector.tree)
        let leaves = vector.tree?.leavesWithPaths ?? []
        #expect(leaves.map { $0.leaf.hash.description } == vector.leafHashes)
        #expect(info.merkleRoot?.description == vector.merkleRoot)
        #expect(info.tweak.hexString == vector.tweak)
        #expect(info.outputKey.bytes.hexString == vector.tweakedKey)
        #expect(info.scriptPubKey.hexString == vector.scriptPubKey)
        #expect(try Address(scriptPubKey: info.scriptPubKey, network: .main).description == vector.address)
        let blocks = info.leafControlBlocks
        #expect(blocks.map { $0.controlBlock.serialized().hexString } == vector.controlBlocks)
        for (leaf, block) in blocks {
            let reparsed = try ControlBlock(serialized: block.serialized())
            #expect(reparsed == block)
            #expect(reparsed.merkleRoot(for: leaf) == info.merkleRoot)
        }
    }

    @Test("keyPathSpending: the per-transaction hashes")
    func intermediaryHashes() throws {
        let (tx, spent) = try BIP341Vectors.unsignedTransaction()
        let expected = try BIP341Vectors.keyPath()["intermediary"] as? [String: String] ?? [:]
        var cache = SighashCache(tx, spentOutputs: spent)
        let message = try cache.taprootSignatureMessage(inputIndex: 0, type: .all)
        // SigMsg with ALL: epoch, type, version, locktime, then the five hashes in BIP341 order.
        let hashes = stride(from: 10, to: 10 + 5 * 32, by: 32).map { Array(message[$0..<$0 + 32]).hexString }
        #expect(hashes[0] == expected["hashPrevouts"])
        #expect(hashes[1] == expected["hashAmounts"])
        #expect(hashes[2] == expected["hashScriptPubkeys"])
        #expect(hashes[3] == expected["hashSequences"])
        #expect(hashes[4] == expected["hashOutputs"])
    }

    @Test(
        "keyPathSpending: every input's SigMsg, sighash, tweaked key and signature",
        arguments: try BIP341Vectors.inputCases())
    func inputSpending(_ vector: BIP341Vectors.InputCase) throws {
        var cache = SighashCache(vector.transaction, spentOutputs: vector.spent)
        let type = SighashType(rawValue: vector.hashType)
        #expect(try cache.taprootSignatureMessage(inputIndex: vector.index, type: type).hexString == vector.sigMsg)
        let sighash = try cache.taprootSignatureHash(inputIndex: vector.index, type: type)
        #expect(sighash.hexString == vector.sigHash)

        let key = try PrivateKey(secret: SecretBytes(copying: TestHex.bytes(vector.privateKey)))
        #expect(key.xOnlyPublicKey.bytes.hexString == vector.internalKey)
        let merkleRoot = vector.merkleRoot.map(TestHex.bytes)
        #expect(TaprootTweak.tweak(internalKey: key.xOnlyPublicKey, merkleRoot: merkleRoot).hexString == vector.tweak)
        let tweaked = try key.taprootTweaked(merkleRoot: merkleRoot)
        #expect(tweaked.secret.withUnsafeBytes { Array($0) }.hexString == vector.tweakedPrivateKey)

        let signature = try tweaked.signSchnorr(message: sighash, auxiliaryRandomness: [UInt8](repeating: 0, count: 32))
        let suffix: [UInt8] = type == .default ? [] : [UInt8(vector.hashType)]
        #expect([(signature.bytes + suffix).hexString] == vector.witness)
        let outputKey = try #require(vector.spent[vector.index].scriptPubKey.template.taprootKey)
        #expect(outputKey.verify(signature, message: sighash))

        // The signer's path: a key pair tweaked by libsecp256k1 gives the same output key and the same signature.
        let pair = try TaprootKeyPair(internalKey: key, merkleRoot: merkleRoot)
        #expect(pair.outputKey == outputKey)
        let pairSignature = try pair.signSchnorr(
            message: sighash, auxiliaryRandomness: [UInt8](repeating: 0, count: 32))
        #expect([(pairSignature.bytes + suffix).hexString] == vector.witness)
    }

    @Test("Taproot sighash refuses bad types, a missing SINGLE output, a bad annex and missing spent outputs")
    func errors() throws {
        let (tx, spent) = try BIP341Vectors.unsignedTransaction()
        var cache = SighashCache(tx, spentOutputs: spent)
        #expect(throws: SighashError.invalidTaprootSighashType(0x04)) {
            try cache.taprootSignatureHash(inputIndex: 0, type: SighashType(rawValue: 4))
        }
        #expect(throws: SighashError.singleWithoutOutput(index: 5)) {
            try cache.taprootSignatureHash(inputIndex: 5, type: .single)
        }
        #expect(throws: SighashError.invalidAnnex) {
            try cache.taprootSignatureHash(inputIndex: 0, type: .all, annex: [1])
        }
        #expect(throws: SighashError.inputIndexOutOfRange(index: 9, inputCount: 9)) {
            try cache.taprootSignatureHash(inputIndex: 9, type: .all)
        }
        var bare = SighashCache(tx)
        #expect(throws: SighashError.missingSpentOutputs(needed: 9, given: 0)) {
            try bare.taprootSignatureHash(inputIndex: 0, type: .all)
        }
    }

    @Test("Script path and annex change the message as BIP341 lays out")
    func scriptPathAndAnnex() throws {
        let (tx, spent) = try BIP341Vectors.unsignedTransaction()
        var cache = SighashCache(tx, spentOutputs: spent)
        let leaf = TapLeaf(tapscript: Script([.push([UInt8](repeating: 2, count: 32)), .op(.checkSig)]))
        let keyPath = try cache.taprootSignatureMessage(inputIndex: 1, type: .default)
        let scriptPath = try cache.taprootSignatureMessage(inputIndex: 1, type: .default, leafHash: leaf.hash)
        let withAnnex = try cache.taprootSignatureMessage(
            inputIndex: 1, type: .default, annex: [0x50, 1], leafHash: leaf.hash, codeSeparatorPosition: 7)
        #expect(scriptPath.count == keyPath.count + 37)
        #expect(Array(scriptPath.suffix(37)) == leaf.hash.bytes + [0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(scriptPath[keyPath.count - 5] == 2)  // spend_type: ext_flag 1, no annex
        #expect(withAnnex[keyPath.count - 5] == 3)
        #expect(Array(withAnnex.suffix(4)) == [7, 0, 0, 0])
        #expect(withAnnex.count == scriptPath.count + 32)
    }
}

extension ScriptTemplate {
    /// The output key of a P2TR template.
    var taprootKey: XOnlyPublicKey? {
        if case .p2tr(let key) = self { return key }
        return nil
    }
}
