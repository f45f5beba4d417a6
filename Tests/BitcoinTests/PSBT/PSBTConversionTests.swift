import Bitcoin
import TestSupport
import Testing

/// v0 ↔ v2 conversion (BIP370) and the coordinator trim.
@Suite("PSBT conversion (BIP370) and trim")
struct PSBTConversionTests {
    @Test("v0 → v2 → v0 keeps the transaction and every field", arguments: try PSBTVectors.bip174().valid)
    func roundTripV0(_ vector: PSBTVectors.BIPCase) throws {
        let original = try PSBT(serialized: TestHex.bytes(vector.hex))
        let v2 = try original.convertedToVersion2()
        #expect(v2.version == 2)
        #expect(v2.global.value(PSBTKeyType.Global.unsignedTx) == nil)
        let reparsed = try PSBT(serialized: v2.serialized())
        #expect(try reparsed.unsignedTxid() == original.unsignedTxid())
        let back = try reparsed.convertedToVersion0()
        #expect(try back.unsignedTransaction() == original.unsignedTransaction())
        var canonical = original
        canonical.canonicalize()
        #expect(back.serialized() == canonical.serialized())
    }

    @Test("v2 → v0 uses the BIP370 locktime", arguments: try PSBTVectors.bip370().valid)
    func v2ToV0(_ vector: PSBTVectors.BIPCase) throws {
        let v2 = try PSBT(serialized: TestHex.bytes(vector.hex))
        let v0 = try v2.convertedToVersion0()
        let reparsed = try PSBT(serialized: v0.serialized())
        #expect(reparsed.version == 0)
        #expect(try reparsed.unsignedTransaction().lockTime.rawValue == v2.computedLocktime())
        #expect(try reparsed.unsignedTxid() == v2.unsignedTxid())
    }

    @Test("the trim keeps only signatures, and combining it back gives the full signed PSBT")
    func trimCombines() throws {
        let signed1 = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("signer_1")))
        let signed2 = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("signer_2")))
        let trimmed = signed2.trimmedForCoordinator()
        #expect(trimmed.serialized().count < signed2.serialized().count / 2)
        for input in trimmed.inputs {
            #expect(input.map.entries.allSatisfy { $0.keyType == PSBTKeyType.Input.partialSig })
        }
        let reparsed = try PSBT(serialized: trimmed.serialized())
        let combined = try signed1.combined(with: [reparsed])
        #expect(combined.serialized().hexString == (try BIP174Workflow.resultHex("combiner")))
    }
}
