import Bitcoin
import BitcoinCrypto
import Descriptors
import SeedBackup
import Signer
import SilentPayments
import Testing

/// Two vaults, each holding one input of a transaction paying a silent-payment address.
///
/// BIP375's flow across several signers: the first adds its share and signs nothing, the second completes the
/// shares, computes the script and signs, the first signs on its second pass. And this vault's own silent-payment
/// change (label 0).
@Suite("Signing decision: silent payments across several signers, and silent-payment change")
struct SilentPaymentSeveralSignersTests {
    let alice: ReviewFixture
    let bob: ExtendedPrivateKey
    let bobPath: DerivationPath
    let recipient = SilentPaymentAddress(
        scanKey: PrivateKey.random().publicKey, spendKey: PrivateKey.random().publicKey, network: .test)

    init() throws {
        alice = try ReviewFixture()
        // BIP39's second test vector mnemonic: another seed.
        let seed = try Mnemonic(
            phrase: "legal winner thank year wave sausage worth useful legal winner thank yellow"
        ).seed()
        bob = try ExtendedPrivateKey(seed: seed, network: .test)
        bobPath = try DerivationPath(string: "m/84h/1h/0h/0/7")
    }

    func session(_ master: ExtendedPrivateKey) -> SigningSession {
        SigningSession(master: master, network: .test, policy: SigningPolicy(network: .test))
    }

    var bobKey: PrivateKey { get throws { try bob.derive(bobPath).privateKey } }

    /// Alice's receive 0 coin and Bob's coin, paying the silent-payment address and Alice's change.
    func psbt() throws -> PSBT {
        let aliceCoin = try alice.funding(amount: 100_000)
        let bobScript = Script([0x00, 0x14] + Hash160.hash(try bobKey.publicKey.compressed))
        let bobCoin = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 50_000), scriptPubKey: bobScript)])
        let transaction = Transaction(
            inputs: [
                TxIn(previousOutput: OutPoint(txid: aliceCoin.txid, vout: 0), sequence: .replaceByFee),
                TxIn(previousOutput: OutPoint(txid: bobCoin.txid, vout: 0), sequence: .replaceByFee),
            ],
            outputs: [
                TxOut(value: try Amount(sats: 120_000), scriptPubKey: try alice.externalScript),
                TxOut(value: try Amount(sats: 29_000), scriptPubKey: try alice.account.scriptPubKey(at: 0, path: 1)),
            ])
        var psbt = try PSBT(unsignedTransaction: transaction)
        psbt.setNonWitnessUTXO(aliceCoin, input: 0)
        psbt.setWitnessUTXO(aliceCoin.outputs[0], input: 0)
        psbt.addBIP32Derivation(
            try alice.key(branch: 0, index: 0), origin: try alice.origin(branch: 0, index: 0), input: 0)
        psbt.setNonWitnessUTXO(bobCoin, input: 1)
        psbt.setWitnessUTXO(bobCoin.outputs[0], input: 1)
        psbt.addBIP32Derivation(
            try bobKey.publicKey, origin: KeyOrigin(fingerprint: bob.fingerprint, path: bobPath), input: 1)
        psbt.addBIP32Derivation(
            try alice.key(branch: 1, index: 0), origin: try alice.origin(branch: 1, index: 0), output: 1)
        var v2 = try psbt.convertedToVersion2()
        v2.outputs[0].map.remove(PSBTKeyType.Output.script)
        v2.outputs[0].map.set(PSBTKeyType.Output.spV0Info, value: recipient.psbtInfo)
        return try PSBT(serialized: v2.serialized())
    }

    func expectedScript(_ psbt: PSBT) throws -> Script {
        let aliceKey = try alice.master.derive(try alice.origin(branch: 0, index: 0).path).privateKey
        let outputs = try BIP352.createOutputs(
            inputKeys: [(aliceKey, false), (try bobKey, false)],
            outpoints: psbt.inputs.compactMap(\.previousOutpoint), recipients: [recipient])
        return BIP352.script(outputKey: try #require(outputs.first).key)
    }

    @Test("first signer: its share added, nothing signed (pending input 1); second completes and signs; first signs")
    func handOff() throws {
        let unsigned = try psbt()
        let first = try session(alice.master).review(unsigned)
        #expect(first.isApproved, "\(first.refusals)")
        #expect(first.pendingShares == [1])
        #expect(first.question == BIP375.sharesQuestion)
        #expect(first.sharesAddedSummary?.contains("1 input(s) still need another signer's share") == true)
        #expect(first.review.text.contains("its script is computed once every input's ECDH share is in"))
        let scan = recipient.scanKey.compressed
        #expect(first.original.inputs[0].map.entry(PSBTKeyType.Input.spECDHShare, keyData: scan) != nil)
        #expect(first.original.outputs[0].script == nil)

        let second = try session(bob).review(first.original)
        #expect(second.isApproved, "\(second.refusals)")
        #expect(second.pendingShares.isEmpty)
        let bobSigned = try second.sign()
        #expect(bobSigned.signedInputs == [1])
        #expect(bobSigned.psbt.outputs[0].script == (try expectedScript(unsigned)))
        #expect(bobSigned.psbt.global.value(PSBTKeyType.Global.txModifiable) == [0])

        let again = try session(alice.master).review(bobSigned.psbt)
        #expect(again.isApproved, "\(again.refusals)")
        #expect(again.pendingShares.isEmpty)
        let aliceSigned = try again.sign()
        #expect(aliceSigned.signedInputs == [0])
        #expect(aliceSigned.isComplete)
        try BIP375.verifyComplete(try #require(aliceSigned.finalized))
    }

    @Test("attack: the first signer's share with a bad proof is refused by the second (control: handOff)")
    func badProofFromFirstSigner() throws {
        var tampered = try session(alice.master).review(try psbt()).original
        let scan = recipient.scanKey.compressed
        var proof = try #require(tampered.inputs[0].map.entry(PSBTKeyType.Input.spDLEQ, keyData: scan)).value
        proof[10] ^= 0x01
        tampered.inputs[0].map.set(PSBTKeyType.Input.spDLEQ, keyData: scan, value: proof)
        let decision = try session(bob).review(tampered)
        #expect(!decision.isApproved)
        #expect(decision.refusals.contains { $0.description.contains("does not prove its key") })
        #expect(throws: (any Error).self) { try decision.sign() }
    }

    @Test("attack: a share (with a valid proof) made with a key that is not input 0's is refused by the second")
    func shareOfAnotherKey() throws {
        var tampered = try session(alice.master).review(try psbt()).original
        // Someone else's share and proof for input 0: valid for its own key, not for the key input 0 spends.
        let attacker = PrivateKey.random()
        let share = try recipient.scanKey.multiplied(by: attacker)
        let proof = try #require(
            DLEQ.generateProof(
                privateKey: attacker, point: recipient.scanKey, auxiliaryRandomness: [UInt8](repeating: 1, count: 32)))
        #expect(DLEQ.verifyProof(a: attacker.publicKey, b: recipient.scanKey, c: share, proof: proof))
        let scan = recipient.scanKey.compressed
        tampered.inputs[0].map.set(PSBTKeyType.Input.spECDHShare, keyData: scan, value: share.compressed)
        tampered.inputs[0].map.set(PSBTKeyType.Input.spDLEQ, keyData: scan, value: proof)
        let decision = try session(bob).review(tampered)
        #expect(!decision.isApproved)
        #expect(decision.refusals.contains { $0.description.contains("does not prove its key") })
    }

    /// The PSBT with output 1 (Alice's change) paid to a silent-payment address with `label` instead.
    func changePSBT(keys: SilentPaymentKeys, label: UInt32?) throws -> PSBT {
        var psbt = try psbt()
        let address = try keys.address(label: label ?? 0, network: .test)
        psbt.outputs[1].map.remove(PSBTKeyType.Output.script)
        psbt.outputs[1].map.remove(PSBTKeyType.Output.bip32Derivation)
        psbt.outputs[1].map.set(PSBTKeyType.Output.spV0Info, value: address.psbtInfo)
        if let label {
            psbt.outputs[1].map.set(
                PSBTKeyType.Output.spV0Label,
                value: [UInt8(label & 0xFF), UInt8(label >> 8 & 0xFF), UInt8(label >> 16 & 0xFF), UInt8(label >> 24)])
        }
        return try PSBT(serialized: psbt.serialized())
    }

    @Test("this vault's silent-payment change (label 0, keys re-derived from m/352h) is change, not a payment")
    func ownChange() throws {
        let own = try SilentPaymentKeys(master: alice.master, network: .test, account: 0)
        let psbt = try changePSBT(keys: own, label: 0)
        #expect(BIP375.ownChange(psbt, master: alice.master, network: .test) == [1: 0])
        let review = try session(alice.master).review(psbt).review
        #expect(review.analysis.outputs[1].isChange)
        #expect(review.analysis.changeAmount.sats == 29_000)
        #expect(review.analysis.amountSent.sats == 120_000)
        #expect(review.text.contains("silent payment: this vault's own change, label 0, account 0"))
        #expect(review.text.contains("silent-payment account 0 (m/352h/1h/0h)"))
    }

    @Test("controls: another seed's label-0 address, this seed's label 1, and no label are payments")
    func notChange() throws {
        let own = try SilentPaymentKeys(master: alice.master, network: .test, account: 0)
        let other = try SilentPaymentKeys(master: bob, network: .test, account: 0)
        for psbt in [
            try changePSBT(keys: other, label: 0), try changePSBT(keys: own, label: 1),
            try changePSBT(keys: own, label: nil),
        ] {
            #expect(BIP375.ownChange(psbt, master: alice.master, network: .test).isEmpty)
            let review = try session(alice.master).review(psbt).review
            #expect(review.analysis.outputs[1].isExternal)
            #expect(review.analysis.amountSent.sats == 149_000)
        }
    }

    @Test("the account named by the output's m/352h derivation is the one checked (control: account 0 is not it)")
    func changeOfAnotherAccount() throws {
        let third = try SilentPaymentKeys(master: alice.master, network: .test, account: 3)
        var psbt = try changePSBT(keys: third, label: 0)
        #expect(BIP375.ownChange(psbt, master: alice.master, network: .test).isEmpty)
        let path = try DerivationPath(string: "m/352h/1h/3h/1h/0")
        psbt.addBIP32Derivation(
            third.scanKey.publicKey, origin: KeyOrigin(fingerprint: alice.master.fingerprint, path: path), output: 1)
        #expect(BIP375.ownChange(psbt, master: alice.master, network: .test) == [1: 3])
    }
}
