import Bitcoin
import BitcoinCrypto
import Testing

@testable import Signer

/// The PSBT flow (`PSBTSignFlow`).
///
/// The journal's verdict on a PSBT seen before, the refusal after review, and the
/// answer chosen (finalized, trimmed or whole). Each rule with its bad case and a control.
@Suite("PSBT sign flow")
struct PSBTSignFlowTests {
    /// A regtest vault of "abandon … about", the flow over the fixture's PSBT, and that PSBT.
    static func flow(fee: UInt64 = 1_000) throws -> (PSBTSignFlow, UnlockedVault, PSBT) {
        let (vault, _) = try VaultTests.makeVault()
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        let fixture = try ReviewFixture(network: .regtest)
        let psbt = try fixture.psbt(fee: fee)
        let flow = try PSBTSignFlow(
            psbt, vault: unlocked, master: try unlocked.masterKey(), policy: SigningPolicy(network: .main))
        return (flow, unlocked, psbt)
    }

    @Test("the signed answer fed back is refused, naming the journal entry; the request again only gets a note")
    func history() throws {
        let (flow, unlocked, psbt) = try Self.flow()
        #expect(try PSBTSignFlow.history(of: psbt, in: unlocked) == nil)
        let result = try flow.sign(allowFlags: [], finalize: false, full: true, trim: false)
        #expect {
            try PSBTSignFlow.history(of: result.written, in: unlocked)
        } throws: { error in
            guard case .signedAnswer(_, let entry) = error as? PSBTSignError else { return false }
            return entry == 1 && "\(error)".contains("(journal entry 1), not a request")
        }
        let note = try PSBTSignFlow.history(of: psbt, in: unlocked)
        #expect(note?.hasPrefix("note: this transaction was already signed on ") == true)
    }

    @Test("a fee above the policy is refused by the review and nothing is signed or recorded; the control signs")
    func refusedAfterReview() throws {
        let (high, unlocked, _) = try Self.flow(fee: 30_000)
        var policy = SigningPolicy(network: .regtest)
        policy.maxFee = try Amount(sats: 10_000)
        let refused = try PSBTSignFlow(
            try ReviewFixture(network: .regtest).psbt(fee: 30_000), vault: unlocked, master: try unlocked.masterKey(),
            policy: policy)
        #expect(!refused.decision.isApproved)
        #expect(throws: PSBTSignError.self) {
            try refused.sign(allowFlags: [], finalize: false, full: false, trim: false)
        }
        #expect(try unlocked.auditLog.entries().isEmpty)
        let result = try high.sign(allowFlags: ["--x"], finalize: false, full: false, trim: false)
        #expect(result.signed.signedInputs == [0])
        #expect(try unlocked.auditLog.entries().map(\.summary.allowFlags) == [["--x"]])
    }

    @Test("finalize gives the finalized PSBT and its transaction; with trim the trimmed answer; without, the answer")
    func answer() throws {
        let (flow, _, _) = try Self.flow()
        let final = try flow.sign(allowFlags: [], finalize: true, full: false, trim: false)
        #expect(final.signed.isComplete)
        let transaction = try #require(final.transaction)
        #expect(final.written.inputs[0].isFinalized)
        #expect(try final.written.extractTransaction().serialized() == transaction.serialized())
        let trimmed = try PSBTSignFlow.answer(final.signed, finalize: true, full: false, trim: true)
        #expect(trimmed.transaction != nil)
        #expect(trimmed.written.serialized() == final.signed.answer(trim: true).serialized())
        // Control: without --finalize no transaction, the answer as SignedPSBT chooses it (trimmed: complete).
        let plain = try PSBTSignFlow.answer(final.signed, finalize: false, full: false, trim: false)
        #expect(plain.transaction == nil)
        #expect(plain.written.serialized() == final.signed.answer().serialized())
        #expect(!plain.written.inputs[0].isFinalized)
        let whole = try PSBTSignFlow.answer(final.signed, finalize: false, full: true, trim: false)
        #expect(whole.written.serialized() == final.signed.psbt.serialized())
    }
}
