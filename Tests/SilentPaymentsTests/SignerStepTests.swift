import Bitcoin
import BitcoinCrypto
import SilentPayments
import Testing

/// A PSBTv2 with two P2WPKH inputs paying one silent-payment address and one ordinary output, as a coordinator
/// writes it (no script for the silent-payment output).
struct SilentPaymentFixture {
    let keys = [PrivateKey.random(), PrivateKey.random()]
    let scan = PrivateKey.random()
    let spend = PrivateKey.random()
    var address: SilentPaymentAddress {
        SilentPaymentAddress(scanKey: scan.publicKey, spendKey: spend.publicKey, network: .regtest)
    }
    let outpoints: [OutPoint]

    init() throws {
        outpoints = [
            OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0x11, count: 32)), vout: 1),
            OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0x22, count: 32)), vout: 0),
        ]
    }

    static func p2wpkh(_ key: PublicKey) -> Script { Script([0x00, 0x14] + Hash160.hash(key.compressed)) }

    static func txOut(_ sats: UInt64, _ script: Script) -> [UInt8] {
        var writer = ByteWriter()
        writer.write((0..<8).map { UInt8(sats >> (8 * UInt64($0)) & 0xFF) })
        writer.writeVarBytes(script.bytes)
        return writer.bytes
    }

    func psbt() throws -> PSBT {
        let transaction = Transaction(
            version: 2,
            inputs: outpoints.map { TxIn(previousOutput: $0, sequence: SequenceNumber(rawValue: 0xFFFF_FFFD)) },
            outputs: [
                TxOut(
                    value: try Amount(sats: 50_000),
                    scriptPubKey: Script([0x51, 0x20] + [UInt8](repeating: 0, count: 32))),
                TxOut(value: try Amount(sats: 40_000), scriptPubKey: Self.p2wpkh(PrivateKey.random().publicKey)),
            ],
            lockTime: LockTime(rawValue: 0))
        var psbt = try PSBT(unsignedTransaction: transaction).convertedToVersion2()
        for (index, key) in keys.enumerated() {
            psbt.inputs[index].map.set(
                PSBTKeyType.Input.witnessUTXO, value: Self.txOut(60_000, Self.p2wpkh(key.publicKey)))
            psbt.inputs[index].map.set(
                PSBTKeyType.Input.bip32Derivation, keyData: key.publicKey.compressed, value: [1, 2, 3, 4, 0, 0, 0, 0])
        }
        psbt.outputs[0].map.remove(PSBTKeyType.Output.script)
        psbt.outputs[0].map.set(PSBTKeyType.Output.spV0Info, value: address.psbtInfo)
        return try PSBT(serialized: psbt.serialized())
    }

    /// The output key BIP352 gives from the private keys directly (the independent path).
    func expectedScript() throws -> Script {
        let outputs = try BIP352.createOutputs(
            inputKeys: keys.map { ($0, false) }, outpoints: outpoints, recipients: [address])
        return BIP352.script(outputKey: try #require(outputs.first).key)
    }
}

@Suite("BIP375 signer step: shares, proofs, scripts and refusals")
struct SignerStepTests {
    let fixture: SilentPaymentFixture

    init() throws { fixture = try SilentPaymentFixture() }

    @Test("One signer with every key: a global share, the script BIP352 gives, flags cleared, the PSBT valid")
    func singleSigner() throws {
        let step = try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0], 1: fixture.keys[1]])
        #expect(step.complete)
        #expect(step.globalShares == [fixture.scan.publicKey])
        #expect(step.psbt.outputs[0].script == (try fixture.expectedScript()))
        #expect(step.psbt.global.value(PSBTKeyType.Global.txModifiable) == [0])
        let reparsed = try PSBT(serialized: step.psbt.serialized())
        try BIP375.verifyComplete(reparsed)
    }

    @Test("Two signers: the first adds its input's share and cannot finish; the second finishes with the same script")
    func twoSigners() throws {
        let first = try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0]])
        #expect(!first.complete)
        #expect(first.sharedInputs == [0])
        #expect(first.psbt.outputs[0].script == nil)
        #expect(throws: SilentPaymentError.self) { try BIP375.verifyComplete(first.psbt) }
        let second = try BIP375.signerStep(first.psbt, keys: [1: fixture.keys[1]])
        #expect(second.complete)
        #expect(second.psbt.outputs[0].script == (try fixture.expectedScript()))
        try BIP375.verifyComplete(second.psbt)
    }

    @Test("Attack: another signer's share with a bad DLEQ proof is refused (control: the untouched proof passes)")
    func badProof() throws {
        let first = try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0]])
        var tampered = first.psbt
        let scan = fixture.scan.publicKey.compressed
        var proof = try #require(tampered.inputs[0].map.entry(PSBTKeyType.Input.spDLEQ, keyData: scan)).value
        proof[40] ^= 0x01
        tampered.inputs[0].map.set(PSBTKeyType.Input.spDLEQ, keyData: scan, value: proof)
        do {
            _ = try BIP375.signerStep(tampered, keys: [1: fixture.keys[1]])
            Issue.record("a bad proof was accepted")
        } catch {
            #expect(error.failureKind == .refused)
            if case .badProof = error {} else { Issue.record("unexpected \(error)") }
        }
        #expect(try BIP375.signerStep(first.psbt, keys: [1: fixture.keys[1]]).complete)
    }

    @Test("Attack: a key the input does not spend is refused before any share is made (control: the right key)")
    func forgedKey() throws {
        var psbt = try fixture.psbt()
        // The coordinator names its own key for input 0, hoping a share for it would be accepted.
        let attacker = PrivateKey.random()
        psbt.inputs[0].map.remove(PSBTKeyType.Input.bip32Derivation)
        psbt.inputs[0].map.set(
            PSBTKeyType.Input.bip32Derivation, keyData: attacker.publicKey.compressed, value: [1, 2, 3, 4, 0, 0, 0, 0])
        #expect(throws: SilentPaymentError.self) { try BIP375.checkInputKeys(psbt) }
        #expect(throws: SilentPaymentError.self) { try BIP375.signerStep(psbt, keys: [0: attacker]) }
        #expect(throws: SilentPaymentError.self) { try BIP375.signerStep(psbt, keys: [1: fixture.keys[1]]) }
        try BIP375.checkInputKeys(try fixture.psbt())
    }

    @Test("Attack: a script the coordinator filled in that the shares do not give is refused (control: the right one)")
    func coordinatorScript() throws {
        let complete = try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0], 1: fixture.keys[1]]).psbt
        var wrong = complete
        let thief = BIP352.script(outputKey: PrivateKey.random().xOnlyPublicKey)
        wrong.outputs[0].map.set(PSBTKeyType.Output.script, value: thief.bytes)
        #expect(throws: SilentPaymentError.scriptMismatch(output: 0)) { try BIP375.verifyComplete(wrong) }
        #expect(throws: SilentPaymentError.scriptMismatch(output: 0)) {
            try BIP375.signerStep(wrong, keys: [0: fixture.keys[0]])
        }
        #expect(SilentPaymentError.scriptMismatch(output: 0).failureKind == .refused)
        try BIP375.verifyComplete(complete)
    }

    @Test("Attack: a script filled in before any share is judged against this signer's shares (control: none set)")
    func coordinatorScriptBeforeShares() throws {
        var forged = try fixture.psbt()
        let thief = BIP352.script(outputKey: PrivateKey.random().xOnlyPublicKey)
        forged.outputs[0].map.set(PSBTKeyType.Output.script, value: thief.bytes)
        forged.global.set(PSBTKeyType.Global.txModifiable, value: [0])
        #expect(throws: SilentPaymentError.scriptMismatch(output: 0)) {
            try BIP375.signerStep(forged, keys: [0: fixture.keys[0], 1: fixture.keys[1]])
        }
        // With only one signer's shares the script cannot be judged yet: refused as lacking coverage.
        #expect(throws: SilentPaymentError.self) { try BIP375.signerStep(forged, keys: [0: fixture.keys[0]]) }
        #expect(try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0], 1: fixture.keys[1]]).complete)
    }

    @Test("Attack: a segwit v2 input beside a silent payment is refused (control: the same PSBT without it signs)")
    func segwitV2() throws {
        var psbt = try fixture.psbt()
        psbt.inputs[1].map.set(
            PSBTKeyType.Input.witnessUTXO,
            value: SilentPaymentFixture.txOut(60_000, Script([0x52, 0x20] + [UInt8](repeating: 7, count: 32))))
        #expect(
            throws: SilentPaymentError.forbiddenInput(
                index: 1, reason: "it spends a segwit version 2 output, which BIP352 cannot count")
        ) {
            try BIP375.signerStep(psbt, keys: [0: fixture.keys[0]])
        }
        #expect(try BIP375.signerStep(try fixture.psbt(), keys: [0: fixture.keys[0]]).sharedInputs == [0])
    }

    @Test("Attack: SIGHASH_SINGLE on an input is refused (control: SIGHASH_ALL given explicitly signs)")
    func sighash() throws {
        var psbt = try fixture.psbt()
        psbt.inputs[0].map.set(PSBTKeyType.Input.sighashType, value: [3, 0, 0, 0])
        #expect(throws: SilentPaymentError.forbiddenSighash(index: 0, sighash: 3)) {
            try BIP375.signerStep(psbt, keys: [0: fixture.keys[0]])
        }
        #expect(SilentPaymentError.forbiddenSighash(index: 0, sighash: 3).failureKind == .refused)
        psbt.inputs[0].map.set(PSBTKeyType.Input.sighashType, value: [1, 0, 0, 0])
        #expect(try BIP375.signerStep(psbt, keys: [0: fixture.keys[0], 1: fixture.keys[1]]).complete)
    }

    @Test("A version 0 PSBT cannot carry silent-payment fields (control: version 2 parses)")
    func versionZero() throws {
        let psbt = try fixture.psbt()
        #expect(throws: PSBTError.self) { try psbt.convertedToVersion0() }
        #expect(try PSBT(serialized: psbt.serialized()).version == 2)
    }
}
