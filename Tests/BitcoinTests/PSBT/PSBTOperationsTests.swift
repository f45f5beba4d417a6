import Bitcoin
import Foundation
import TestSupport
import Testing

/// The BIP174 Combiner, Finalizer and Extractor against Bitcoin Core's rpc_psbt.json cases and the BIP174 workflow.
@Suite("PSBT combine, finalize, extract: BIP174 and Bitcoin Core rpc_psbt.json")
struct PSBTOperationsTests {
    @Test("Bitcoin Core combiner cases")
    func coreCombiner() throws {
        let cases = try PSBTVectors.core().combiner
        #expect(!cases.isEmpty)
        for item in cases {
            let psbts = try item.combine.map { try PSBT(base64: $0) }
            let combined = try psbts[0].combined(with: Array(psbts.dropFirst()))
            #expect(combined.base64String == item.result)
        }
    }

    @Test("Bitcoin Core finalizer cases")
    func coreFinalizer() throws {
        let cases = try PSBTVectors.core().finalizer
        #expect(!cases.isEmpty)
        for item in cases {
            var psbt = try PSBT(base64: item.finalize)
            let complete = psbt.finalize()
            #expect(complete)
            #expect(psbt.base64String == item.result)
        }
    }

    @Test("Bitcoin Core extractor cases")
    func coreExtractor() throws {
        let cases = try PSBTVectors.core().extractor
        #expect(!cases.isEmpty)
        for item in cases {
            let psbt = try PSBT(base64: item.extract)
            #expect(try psbt.extractTransaction().serialized().hexString == item.result)
        }
    }

    @Test("BIP174 workflow: updater adds SIGHASH_ALL")
    func workflowSighash() throws {
        var psbt = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("updater")))
        for index in psbt.inputs.indices { psbt.setSighashType(.all, input: index) }
        #expect(psbt.serialized().hexString == (try BIP174Workflow.resultHex("updater_sighash_all")))
    }

    @Test("BIP174 workflow: combiner of the two signers")
    func workflowCombiner() throws {
        let first = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("signer_1")))
        let second = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("signer_2")))
        let combined = try first.combined(with: [second])
        #expect(combined.serialized().hexString == (try BIP174Workflow.resultHex("combiner")))
    }

    @Test("BIP174 workflow: finalizer and extractor")
    func workflowFinalizeExtract() throws {
        var psbt = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("combiner")))
        let complete = psbt.finalize()
        #expect(complete)
        #expect(psbt.serialized().hexString == (try BIP174Workflow.resultHex("finalizer")))
        let step = try BIP174Workflow.step("extractor")
        #expect(try psbt.extractTransaction().serialized().hexString == step["result_tx_hex"] as? String)
    }

    @Test("BIP174 workflow: combiner with unknown keys orders them lexicographically")
    func workflowUnknownKeys() throws {
        let inputs = try BIP174Workflow.inputHexes("combiner_unknown_keys")
        #expect(inputs.count == 2)
        let psbts = try inputs.map { try PSBT(serialized: TestHex.bytes($0)) }
        let combined = try psbts[0].combined(with: [psbts[1]])
        #expect(combined.serialized().hexString == (try BIP174Workflow.resultHex("combiner_unknown_keys")))
    }

    @Test("combining PSBTs of different transactions is refused")
    func combineMismatch() throws {
        let a = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("creator")))
        let other = try PSBTVectors.bip174().valid[0]
        let b = try PSBT(serialized: TestHex.bytes(other.hex))
        #expect(throws: PSBTError.combineMismatch) { try a.combined(with: [b]) }
    }

    @Test("extracting an unfinalized PSBT names the input")
    func extractUnfinalized() throws {
        let psbt = try PSBT(serialized: TestHex.bytes(BIP174Workflow.resultHex("combiner")))
        #expect(throws: PSBTError.notFinalized(input: 0)) { try psbt.extractTransaction() }
    }
}
