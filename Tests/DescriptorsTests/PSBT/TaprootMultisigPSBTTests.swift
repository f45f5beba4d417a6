import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// Taproot multisig PSBTs from descriptors (BIP371 fields for `tr(KEY,multi_a(…))`), checked against the BIP387
/// vectors' scripts, and the multisig signature state on the BIP174 workflow's signer steps.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0387.mediawiki#test-vectors
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0371.mediawiki
@Suite("Taproot multisig PSBT fields (BIP371, BIP387 vectors) and multisig signature state (BIP174 workflow)")
struct TaprootMultisigPSBTTests {
    /// The BIP387 valid vectors whose keys are public or have origins (ranged or not), with their scripts by index.
    static let vectors: [(descriptor: String, scripts: [String])] = {
        guard let root = try? Vectors.anyJSON("descriptors/bip387_vectors.json") as? [String: Any],
            let valid = root["valid"] as? [[String: Any]]
        else { return [] }
        return valid.compactMap { entry in
            guard let text = entry["descriptor"] as? String, let scripts = entry["scripts"] as? [String],
                text.hasPrefix("tr(")
            else { return nil }
            return (text, scripts)
        }
    }()

    static func funding(paying script: Script) throws -> Transaction {
        let fake = try Txid(bytes: [UInt8](repeating: 0xCD, count: 32))
        return Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: fake, vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 80_000), scriptPubKey: script)])
    }

    @Test("Every BIP387 tr() vector with extended keys: the PSBT's leaf script and control block rebuild the output")
    func bip387LeafFields() throws {
        let usable = Self.vectors.filter { $0.descriptor.contains("pub") || $0.descriptor.contains("prv") }
        #expect(usable.count == 2, "the BIP387 file has two tr() vectors with extended keys")
        for (text, scripts) in usable {
            let descriptor = try Descriptor(string: text)
            for (index, expected) in scripts.enumerated() {
                let script = try descriptor.scriptPubKey(at: UInt32(index))
                #expect(script.hexString == expected)
                let funding = try Self.funding(paying: script)
                let coin = DescriptorCoin(
                    outpoint: OutPoint(txid: funding.txid, vout: 0), amount: try Amount(sats: 80_000),
                    index: UInt32(index), previousTransaction: funding)
                let psbt = try PSBT(
                    spending: [coin], of: descriptor,
                    to: [TxOut(value: try Amount(sats: 79_000), scriptPubKey: script)],
                    change: [0: (path: 0, index: UInt32(index))])
                let input = psbt.inputs[0]
                #expect(input.witnessUTXO?.scriptPubKey.hexString == expected)
                #expect(input.tapInternalKey?.bytes == MultisigTestKeys.nums)
                #expect(input.tapLeafScripts.count == 1)
                let leaf = try #require(input.tapLeafScripts.first)
                let block = try ControlBlock(serialized: leaf.controlBlock)
                let tapLeaf = TapLeaf(tapscript: leaf.script)
                let root = block.merkleRoot(for: tapLeaf)
                #expect(input.tapMerkleRoot == root.bytes)
                let output = try block.internalKey.taprootOutputKey(merkleRoot: root.bytes)
                #expect(Script.p2tr(outputKey: output.key).hexString == expected)
                #expect(output.parityIsOdd == block.outputKeyParityIsOdd)
                // Each leaf key (not the NUMS internal key) with the one leaf hash.
                let status = try #require(MultisigSignatureStatus(input))
                #expect(status.kind == "multi_a" && status.threshold == 2 && status.missing == 2)
                #expect(input.tapBIP32Derivations.count == status.cosigners.count)
                #expect(input.tapBIP32Derivations.allSatisfy { $0.leafHashes == [tapLeaf.hash.bytes] })
                #expect(Set(input.tapBIP32Derivations.map(\.key.bytes)) == Set(status.cosigners.map(\.key)))
                // The change output carries the internal key, the tree and the derivations.
                let change = psbt.outputs[0].map
                #expect(change.entry(PSBTKeyType.Output.tapInternalKey)?.value == MultisigTestKeys.nums)
                let tree = try #require(change.entry(PSBTKeyType.Output.tapTree)?.value)
                var expectedTree = ByteWriter()
                expectedTree.write(UInt8(0))
                expectedTree.write(TapLeaf.tapscriptVersion)
                expectedTree.writeVarBytes(leaf.script.bytes)
                #expect(tree == expectedTree.bytes)
                #expect(change.entries(PSBTKeyType.Output.tapBIP32Derivation).count == status.cosigners.count)
                #expect(try PSBT(serialized: psbt.serialized()) == psbt)
            }
        }
    }

    @Test("The size estimate of a NUMS multi_a input is its script path: k signatures, n − k empty items")
    func scriptPathSize() throws {
        let (text, _) = try #require(Self.vectors.first { $0.descriptor.contains("xpub") })
        let descriptor = try Descriptor(string: text)
        let script = try descriptor.scriptPubKey(at: 0)
        let funding = try Self.funding(paying: script)
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: funding.txid, vout: 0), amount: try Amount(sats: 80_000), index: 0,
            previousTransaction: funding)
        let psbt = try PSBT(
            spending: [coin], of: descriptor, to: [TxOut(value: try Amount(sats: 79_000), scriptPubKey: script)])
        let leaf = try #require(psbt.inputs[0].tapLeafScripts.first)
        let (base, witness) = VSizeEstimator.inputWeight(psbt.inputs[0], utxo: funding.outputs[0])
        let status = try #require(MultisigSignatureStatus(psbt.inputs[0]))
        let (k, n) = (status.threshold, status.cosigners.count)
        // Count, k 64-byte signatures with lengths, n − k empty items, the script and the control block.
        #expect(base == 41)
        #expect(witness == 1 + k * 65 + (n - k) + 1 + leaf.script.bytes.count + 1 + leaf.controlBlock.count)
    }

    @Test("BIP174 workflow: after signer 1 each 2-of-2 input has one signature and misses one; combined, none")
    func workflowSignatureState() throws {
        let updated = try PSBT(serialized: TestHex.bytes(try BIP174Workflow.resultHex("updater_sighash_all")))
        let first = try PSBT(serialized: TestHex.bytes(try BIP174Workflow.resultHex("signer_1")))
        let combined = try PSBT(serialized: TestHex.bytes(try BIP174Workflow.resultHex("combiner")))
        let finalized = try PSBT(serialized: TestHex.bytes(try BIP174Workflow.resultHex("finalizer")))
        for index in 0..<2 {
            let before = try #require(MultisigSignatureStatus(updated.inputs[index]))
            #expect(before.threshold == 2 && before.cosigners.count == 2 && before.signatureCount == 0)
            #expect(before.cosigners.allSatisfy { $0.fingerprint?.hexString == "d90c6a4f" })
            let after = try #require(MultisigSignatureStatus(first.inputs[index]))
            #expect(after.signatureCount == 1 && after.missing == 1)
            #expect(after.summary().hasSuffix("; 1 more signature needed"))
            let both = try #require(MultisigSignatureStatus(combined.inputs[index]))
            #expect(both.missing == 0 && both.summary().hasSuffix("; enough signatures"))
            // A finalized input has no state to show (control).
            #expect(MultisigSignatureStatus(finalized.inputs[index]) == nil)
        }
    }

    @Test("BIP174 workflow: signer 1's signatures verify against their sighashes; a corrupted one is bad, not counted")
    func workflowSignaturesVerify() throws {
        let first = try PSBT(serialized: TestHex.bytes(try BIP174Workflow.resultHex("signer_1")))
        let statuses = MultisigSignatureStatus.statuses(of: first)
        #expect(statuses.count == 2)
        for index in 0..<2 {
            let status = try #require(statuses[index])
            #expect(status.cosigners.filter { $0.isValid == true }.count == 1)
            #expect(status.signatureCount == 1 && status.missing == 1)
        }
        // Attack: flip the last byte of input 1's signature (its s value; the DER stays well formed).
        var corrupted = first
        let entry = try #require(corrupted.inputs[1].map.entries(PSBTKeyType.Input.partialSig).first)
        var value = entry.value
        value[value.count - 2] ^= 0x01
        corrupted.inputs[1].map.set(PSBTKeyType.Input.partialSig, keyData: entry.keyData, value: value)
        let bad = try #require(MultisigSignatureStatus.statuses(of: corrupted)[1])
        #expect(bad.cosigners.filter(\.hasBadSignature).count == 1)
        #expect(bad.signatureCount == 0 && bad.missing == 2)
        #expect(bad.summary().contains("BAD SIGNATURE (does not verify, not counted)"))
        // Control: input 0 is untouched.
        #expect(MultisigSignatureStatus.statuses(of: corrupted)[0]?.signatureCount == 1)
    }
}

enum MultisigTestKeys {
    /// BIP341's H, as the BIP387 vectors use it.
    static let nums: [UInt8] = TestHex.bytes("50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0")
}
