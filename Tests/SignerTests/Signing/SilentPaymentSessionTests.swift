import Bitcoin
import BitcoinCrypto
import Signer
import SilentPayments
import Testing

/// The signer's silent-payment step (BIP375) inside `SigningSession.review`: the fixture's spend with output 0 sent
/// to a silent-payment address instead, each attack beside the honest control.
@Suite("Signing decision: silent payments (BIP375)")
struct SilentPaymentSessionTests {
    let fixture: ReviewFixture
    let recipient = SilentPaymentAddress(
        scanKey: PrivateKey.random().publicKey, spendKey: PrivateKey.random().publicKey, network: .test)
    init() throws { fixture = try ReviewFixture() }

    var session: SigningSession {
        SigningSession(
            master: fixture.master, network: fixture.network, policy: SigningPolicy(network: fixture.network))
    }

    /// The fixture's PSBT as a coordinator writes it for a silent payment: version 2, output 0 named by address.
    func psbt() throws -> PSBT {
        var psbt = try fixture.psbt().convertedToVersion2()
        psbt.outputs[0].map.remove(PSBTKeyType.Output.script)
        psbt.outputs[0].map.set(PSBTKeyType.Output.spV0Info, value: recipient.psbtInfo)
        return try PSBT(serialized: psbt.serialized())
    }

    /// The script BIP352 gives from the input's private key directly.
    func expectedScript() throws -> Script {
        let key = try fixture.master.derive(try fixture.origin(branch: 0, index: 0).path).privateKey
        let outpoint = try #require(try psbt().inputs[0].previousOutpoint)
        let outputs = try BIP352.createOutputs(
            inputKeys: [(key, false)], outpoints: [outpoint], recipients: [recipient])
        return BIP352.script(outputKey: try #require(outputs.first).key)
    }

    @Test("control: the share is added, the script computed and shown as a silent payment, then signed")
    func honest() throws {
        let decision = try session.review(try psbt())
        #expect(decision.isApproved, "\(decision.refusals)")
        #expect(decision.review.text.contains("to \(recipient.encoded) (silent payment), output 0"))
        let signed = try decision.sign()
        #expect(signed.signedInputs == [0])
        #expect(signed.psbt.outputs[0].script == (try expectedScript()))
        let answer = signed.answer()
        #expect(answer.global.entry(PSBTKeyType.Global.spDLEQ, keyData: recipient.scanKey.compressed) != nil)
        try BIP375.verifyComplete(answer)
    }

    @Test("attack: a script the coordinator filled in is refused, nothing signed")
    func coordinatorScript() throws {
        var forged = try psbt()
        forged.outputs[0].map.set(PSBTKeyType.Output.script, value: try fixture.externalScript.bytes)
        forged.global.set(PSBTKeyType.Global.txModifiable, value: [0])
        let decision = try session.review(forged)
        #expect(!decision.isApproved)
        #expect(decision.refusals.contains { if case .silentPayment = $0 { true } else { false } })
        #expect(throws: (any Error).self) { try decision.sign() }
    }

    @Test("attack: SIGHASH_SINGLE beside a silent payment is refused, nothing signed")
    func sighash() throws {
        var psbt = try psbt()
        psbt.inputs[0].map.set(PSBTKeyType.Input.sighashType, value: [3, 0, 0, 0])
        let decision = try session.review(psbt)
        #expect(!decision.isApproved)
        #expect(
            decision.refusals.contains(
                .silentPayment(SilentPaymentError.forbiddenSighash(index: 0, sighash: 3).description)))
    }

    @Test("attack: the input's key swapped for another of this seed is refused (the share would not be the input's)")
    func swappedKey() throws {
        var psbt = try psbt()
        psbt.inputs[0].map.remove(PSBTKeyType.Input.bip32Derivation)
        psbt.addBIP32Derivation(
            try fixture.key(branch: 0, index: 5), origin: try fixture.origin(branch: 0, index: 5), input: 0)
        let decision = try session.review(psbt)
        #expect(!decision.isApproved)
        #expect(decision.refusals.contains { if case .silentPayment = $0 { true } else { false } })
    }
}
