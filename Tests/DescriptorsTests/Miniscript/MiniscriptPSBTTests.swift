import BitcoinCrypto
import Foundation
import Testing

@testable import Bitcoin
@testable import Descriptors

/// PSBTs of a `wsh()` / `sh(wsh())` miniscript wallet: the Updater's fields, and the finalizer that satisfies the
/// policy with the PSBT's partial signatures and the transaction's nSequence / nLockTime (docs/miniscript.md).
@Suite("Miniscript PSBT creation and finalization")
struct MiniscriptPSBTTests {
    typealias M = MiniscriptTests

    static func coin() throws -> DescriptorCoin {
        DescriptorCoin(
            outpoint: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 7, count: 32)), vout: 1),
            amount: try Amount(sats: 500_000), path: 0, index: 3)
    }

    static func payee() throws -> TxOut {
        TxOut(
            value: try Amount(sats: 400_000), scriptPubKey: try Script(hex: "0014" + String(repeating: "09", count: 20))
        )
    }

    static func psbt(_ text: String, sequence: UInt32 = 0xFFFF_FFFD) throws -> (PSBT, Descriptor) {
        let descriptor = try Descriptor(string: text)
        let psbt = try PSBT(
            spending: [try coin()], of: descriptor, to: [try payee()], sequence: SequenceNumber(rawValue: sequence))
        return (psbt, descriptor)
    }

    static func addSignature(_ psbt: inout PSBT, key: String, _ n: UInt8) throws {
        psbt.inputs[0].map.set(PSBTKeyType.Input.partialSig, keyData: try M.pub(key, 3), value: M.sig(n))
    }

    @Test("the Updater gives the witness script, the witness UTXO and every key's derivation")
    func updaterFields() throws {
        let (psbt, descriptor) = try Self.psbt(M.inheritance)
        let input = psbt.inputs[0]
        let script = try #require(descriptor.miniscript).script(at: 3, path: 0)
        #expect(input.witnessScript == script)
        #expect(input.witnessUTXO?.scriptPubKey == script.p2wshWrapped)
        #expect(
            Set(input.bip32Derivations.map { $0.origin.fingerprint.hexString })
                == ["d34db33f", "c0ffee00", "abcdef01", "0ddba11a"])
        #expect(input.bip32Derivations.allSatisfy { $0.origin.path.description.hasSuffix("/0/3") })
        #expect(psbt.miniscriptMatch(ofInput: 0, descriptors: [descriptor])?.index == 3)
        // Control: another policy of the same keys does not match the input.
        let other = try Descriptor(string: M.inheritance.replacingOccurrences(of: "older(10)", with: "older(1)"))
        #expect(psbt.miniscriptMatch(ofInput: 0, descriptors: [other]) == nil)
    }

    @Test("primary path: two of the multi keys; the witness is the multi satisfaction, then the script")
    func primaryPath() throws {
        var (psbt, descriptor) = try Self.psbt(M.inheritance)
        try Self.addSignature(&psbt, key: M.a, 1)
        #expect(throws: PSBTError.self) { try psbt.finalizeMiniscriptInput(0, descriptors: [descriptor]) }
        try Self.addSignature(&psbt, key: M.c, 3)
        try psbt.finalizeMiniscriptInput(0, descriptors: [descriptor])
        let witness = try #require(psbt.inputs[0].finalScriptWitness)
        let script = try #require(descriptor.miniscript).script(at: 3, path: 0)
        #expect(witness == [[], M.sig(1), M.sig(3), script.bytes])
        #expect(psbt.inputs[0].map.entries(PSBTKeyType.Input.partialSig).isEmpty)
    }

    @Test("recovery path: Dad's signature needs nSequence 10; with 0xfffffffd the finalizer names the timelock")
    func recoveryPath() throws {
        var (early, descriptor) = try Self.psbt(M.inheritance)
        try Self.addSignature(&early, key: M.d, 4)
        do {
            try early.finalizeMiniscriptInput(0, descriptors: [descriptor])
            Issue.record("finalized without the timelock")
        } catch {
            guard case .cannotFinalize(_, let reason) = error else { throw error }
            #expect(reason.contains("timelock not met") && reason.contains("older(10)"))
        }
        var (psbt, _) = try Self.psbt(M.inheritance, sequence: 10)
        try Self.addSignature(&psbt, key: M.d, 4)
        try psbt.finalizeMiniscriptInput(0, descriptors: [descriptor])
        let script = try #require(descriptor.miniscript).script(at: 3, path: 0)
        // and_v(v:pk(D),older(10)) satisfied above the multi's dissatisfaction (the dummy and two empty items).
        #expect(psbt.inputs[0].finalScriptWitness == [M.sig(4), [], [], [], script.bytes])
    }

    @Test("no signature: not enough signatures; sh(wsh()) puts the redeem script in the scriptSig")
    func nestedAndUnsigned() throws {
        let nested = "sh(" + M.decaying + ")"
        var (psbt, descriptor) = try Self.psbt(nested)
        do {
            try psbt.finalizeMiniscriptInput(0, descriptors: [descriptor])
            Issue.record("finalized without signatures")
        } catch {
            guard case .cannotFinalize(_, let reason) = error else { throw error }
            #expect(reason.contains("not enough signatures"))
        }
        try Self.addSignature(&psbt, key: M.b, 2)
        try Self.addSignature(&psbt, key: M.c, 3)
        try psbt.finalizeMiniscriptInput(0, descriptors: [descriptor])
        let scriptSig = try #require(psbt.inputs[0].finalScriptSig)
        let script = try #require(descriptor.miniscript).script(at: 3, path: 0)
        #expect(scriptSig == Script([.push(script.p2wshWrapped.bytes)]))
        #expect(psbt.inputs[0].finalScriptWitness?.last == script.bytes)
    }
}
