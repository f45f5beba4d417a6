import Bitcoin
import BitcoinCrypto
import SignToContract
import Signer
import Testing

/// The signer's two anti-exfil rounds through `PSBTSigner`, and the watcher's session checks (SignToContract); every
/// attack beside the control that passes.
@Suite("Anti-exfil signing: the signer's rounds and the watcher's checks")
struct AntiExfilSigningTests {
    let fixture: ReviewFixture
    init() throws { fixture = try ReviewFixture() }

    /// The PSBT with every `ae` record removed: what a signer that ignores the protocol signs.
    static func stripped(_ psbt: PSBT) -> PSBT {
        var result = psbt
        for index in result.inputs.indices {
            result.inputs[index].map.remove(PSBTKeyType.Input.proprietary)
        }
        return result
    }

    @Test("round 1 answers commitments and no signature, the same ones every time; round 2 signs and verifies")
    func roundTrip() throws {
        var request = try fixture.psbt()
        var session = try AntiExfilSession.begin(&request)
        #expect(session.keyCount == 1)
        #expect(AntiExfilPSBT.isRequested(request) && AntiExfilPSBT.isCommitRound(request))
        let first = try PSBTSigner().sign(request, with: fixture.provider).psbt
        #expect(first.inputs[0].partialSignatures.isEmpty)
        let key = try fixture.key(branch: 0, index: 0).compressed
        let commitment = try #require(AntiExfilPSBT.value(.signerCommitment, publicKey: key, in: first.inputs[0].map))
        #expect(commitment.count == 33)
        let again = try PSBTSigner().sign(request, with: fixture.provider).psbt
        #expect(AntiExfilPSBT.value(.signerCommitment, publicKey: key, in: again.inputs[0].map) == commitment)
        #expect(session.isCommitAnswer(first))

        let (reveal, retry) = try session.reveal(first)
        #expect(!retry)
        #expect(!AntiExfilPSBT.isCommitRound(reveal))
        let signed = try PSBTSigner().sign(reveal, with: fixture.provider).psbt
        #expect(signed.inputs[0].partialSignatures.count == 1)
        #expect(AntiExfilPSBT.value(.signerCommitment, publicKey: key, in: signed.inputs[0].map) == commitment)
        #expect(try session.verify(signed) == 1)
        // Signing the same revealed PSBT twice gives the same signature (no fresh randomness to grind with).
        let twice = try PSBTSigner().sign(reveal, with: fixture.provider).psbt
        #expect(twice.inputs[0].partialSignatures[0].signature == signed.inputs[0].partialSignatures[0].signature)
    }

    @Test("a signer that ignores the entropy is caught; an ordinary PSBT is signed as always")
    func ignoringEntropyIsCaught() throws {
        var request = try fixture.psbt()
        var session = try AntiExfilSession.begin(&request)
        let reveal = try session.reveal(try PSBTSigner().sign(request, with: fixture.provider).psbt).psbt
        let ignoring = try PSBTSigner().sign(Self.stripped(reveal), with: fixture.provider).psbt
        #expect(throws: AntiExfilError.signatureMismatch(input: 0)) { try session.verify(ignoring) }
        // Control: without any record the signer grinds low R as always and the PSBT needs no session.
        let plain = try PSBTSigner().sign(try fixture.psbt(), with: fixture.provider).psbt
        #expect(plain.inputs[0].partialSignatures.count == 1)
        #expect(!AntiExfilPSBT.isRequested(plain))
    }

    @Test("a signature before any commitment is refused; the retry rule refuses a changed commitment")
    func retryRule() throws {
        var request = try fixture.psbt()
        var session = try AntiExfilSession.begin(&request)
        let skipped = try PSBTSigner().sign(Self.stripped(request), with: fixture.provider).psbt
        #expect(throws: AntiExfilError.signedWithoutCommitment(input: 0)) { try session.verify(skipped) }

        let first = try PSBTSigner().sign(request, with: fixture.provider).psbt
        _ = try session.reveal(first)
        // Control: the same commitment again (a retry) reveals the same entropy.
        var retry = session
        let (revealedAgain, again) = try retry.reveal(first)
        #expect(again && retry.rounds == 2)
        let key = try fixture.key(branch: 0, index: 0).compressed
        #expect(
            AntiExfilPSBT.value(.hostEntropy, publicKey: key, in: revealedAgain.inputs[0].map)
                == (try [UInt8](hex: session.entries[0].entropy)))
        // Attack: another commitment for the same entropy.
        var changed = first
        AntiExfilPSBT.set(
            .signerCommitment, publicKey: key, value: PrivateKey.random().publicKey.compressed,
            in: &changed.inputs[0].map)
        #expect(throws: AntiExfilError.commitmentChanged(input: 0)) { try session.reveal(changed) }
    }
}
