import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// PSBTs spending a `tr()` wallet with a miniscript leaf (BIP371 fields from the descriptor) finalized by the leaf's
/// policy: the multi_a leaf with two cosigners' Schnorr signatures (witness: the signatures in the leaf's order with
/// an empty element for the key that did not sign, the leaf script, the control block); the heir's timelocked leaf
/// refused with nSequence 9 and finalized with 10; no signatures refused. (The node's verdict on such spends:
/// Tests/e2e/test_tap_miniscript_spend.py.)
@Suite("Taproot miniscript leaves in PSBTs")
struct TapMiniscriptPSBTTests {
    static let xprvs = MiniscriptInterpreterTests.xprvs
    static let nums = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"
    static func key(_ n: Int) -> String { "\(xprvs[n])/<0;1>/*" }
    static let text = "tr(\(nums),{and_v(v:pk(\(key(3))),older(10)),multi_a(2,\(key(0)),\(key(1)),\(key(2)))})"

    static let index: UInt32 = 3
    static let path = 1

    static func privateKey(_ n: Int) throws -> PrivateKey { try MiniscriptInterpreterTests.privateKey(n) }

    static func psbt(sequence: UInt32) throws -> PSBT {
        let descriptor = try Descriptor(string: text)
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: try Txid(hex: String(repeating: "cd", count: 32)), vout: 0),
            amount: try Amount(sats: 100_000), path: path, index: index)
        let output = TxOut(value: try Amount(sats: 99_000), scriptPubKey: try descriptor.scriptPubKey(at: 0, path: 0))
        return try PSBT(
            spending: [coin], of: descriptor, to: [output], sequence: SequenceNumber(rawValue: sequence))
    }

    /// Adds Schnorr signatures (SIGHASH_DEFAULT) of cosigners `signers` for the leaf whose script contains their keys.
    static func sign(_ psbt: inout PSBT, _ signers: [Int], leaf: Int) throws {
        let leaves = psbt.inputs[0].tapLeafScripts
        let script = leaves.map(\.script).sorted { $0.bytes.count < $1.bytes.count }[leaf]
        let leafHash = TapLeaf(tapscript: script).hash
        let transaction = try psbt.unsignedTransaction()
        let utxo = try #require(psbt.inputs[0].witnessUTXO)
        var cache = SighashCache(transaction, spentOutputs: [utxo])
        let digest = try cache.taprootSignatureHash(inputIndex: 0, type: .default, leafHash: leafHash)
        for n in signers {
            let key = try privateKey(n)
            let signature = try key.signSchnorr(message: digest)
            psbt.inputs[0].map.set(
                PSBTKeyType.Input.tapScriptSig, keyData: key.xOnlyPublicKey.bytes + leafHash.bytes,
                value: signature.bytes)
        }
    }

    @Test("the PSBT carries both leaves with control blocks and every leaf key's derivation with its leaf hash")
    func fields() throws {
        let psbt = try Self.psbt(sequence: 0xFFFF_FFFD)
        let input = psbt.inputs[0]
        #expect(input.tapLeafScripts.count == 2)
        #expect(input.tapLeafScripts.allSatisfy { $0.controlBlock.count == 33 + 32 })
        let leafKeys = input.tapBIP32Derivations.filter { !$0.leafHashes.isEmpty }
        #expect(leafKeys.count == 4)
        let descriptor = try Descriptor(string: Self.text)
        let matches = psbt.tapMiniscriptLeaves(ofInput: 0, descriptors: [descriptor])
        #expect(matches.count == 1)
        #expect(matches.first?.index == Self.index && matches.first?.path == Self.path)
    }

    @Test("multi_a leaf (a plain descriptor leaf beside the miniscript one): the generic finalizer takes it")
    func multiALeaf() throws {
        var psbt = try Self.psbt(sequence: 0xFFFF_FFFD)
        try Self.sign(&psbt, [0, 2], leaf: 1)
        let descriptor = try Descriptor(string: Self.text)
        // Not a miniscript leaf: the descriptor-driven finalizer has nothing to satisfy with these signatures.
        var copy = psbt
        #expect(throws: PSBTError.self) { try copy.finalizeTapMiniscriptInput(0, descriptors: [descriptor]) }
        try psbt.finalizeInput(0)
        let witness = try #require(psbt.inputs[0].finalScriptWitness)
        #expect(witness.count == 5)
        // multi_a(2,K0,K1,K2): K0's signature on top (last before the script), K1 empty, K2's at the bottom.
        #expect(witness[0].count == 64 && witness[1].isEmpty && witness[2].count == 64)
        #expect(Script(witness[3]).hexString.hasSuffix("ba529c"))
        #expect(witness[4].count == 65)
        _ = try psbt.extractTransaction()
    }

    @Test("heir leaf: refused with nSequence 9 (timelock not met), finalized with 10; no signature: refused")
    func heirLeaf() throws {
        let descriptor = try Descriptor(string: Self.text)
        var early = try Self.psbt(sequence: 9)
        try Self.sign(&early, [3], leaf: 0)
        #expect {
            try early.finalizeTapMiniscriptInput(0, descriptors: [descriptor])
        } throws: { error in
            "\(error)".contains("timelock not met") && "\(error)".contains("older(10)")
        }
        var late = try Self.psbt(sequence: 10)
        try Self.sign(&late, [3], leaf: 0)
        // The generic finalizer knows only pk and multi_a leaves.
        var generic = late
        #expect(throws: PSBTError.self) { try generic.finalizeInput(0) }
        try late.finalizeTapMiniscriptInput(0, descriptors: [descriptor])
        let witness = try #require(late.inputs[0].finalScriptWitness)
        #expect(witness.count == 3 && witness[0].count == 64)
        #expect(Script(witness[1]).hexString.hasSuffix("ad5ab2"))
        var unsigned = try Self.psbt(sequence: 10)
        #expect {
            try unsigned.finalizeTapMiniscriptInput(0, descriptors: [descriptor])
        } throws: { error in
            "\(error)".contains("not enough signatures")
        }
        // Another cosigner's signature for the heir's leaf does not satisfy it.
        var other = try Self.psbt(sequence: 10)
        try Self.sign(&other, [1], leaf: 0)
        #expect(throws: PSBTError.self) { try other.finalizeTapMiniscriptInput(0, descriptors: [descriptor]) }
    }
}
