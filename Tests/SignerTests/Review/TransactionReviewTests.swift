import Bitcoin
import BitcoinCrypto
import Signer
import Testing

/// The review and policy of docs/architecture.md section 5: ownership re-derived from the account, fee and change, and each attack
/// the signer must refuse or flag.
@Suite("Transaction review and signing policy (docs/architecture.md section 5)")
struct TransactionReviewTests {
    @Test("a plain payment: change verified, fee and fee rate, nothing refused")
    func plainPayment() throws {
        let fixture = try ReviewFixture()
        let review = try fixture.review(try fixture.psbt())
        #expect(review.isAcceptable, "\(review.refusals)")
        #expect(review.analysis.fee == (try Amount(sats: 1_000)))
        #expect(review.analysis.amountSent == (try Amount(sats: 60_000)))
        #expect(review.analysis.changeAmount == (try Amount(sats: 39_000)))
        #expect(review.analysis.outputs[1].ownership == .ours(account: 0, branch: 1, index: 0))
        #expect(review.analysis.inputs[0].ownership == .ours(account: 0, branch: 0, index: 0))
        // One P2WPKH input, two outputs (P2WSH, P2WPKH): 10.5 + 68 + 43 + 31 = 152.5 → 153 vB with a 72-byte signature.
        #expect((140...155).contains(review.analysis.estimatedVSize))
        #expect(review.analysis.warnings.isEmpty, "\(review.analysis.warnings)")
        #expect(review.text.contains("SENDING (1 destination)"))
        #expect(review.text.contains("0.00060000 BTC"))
    }

    @Test("change with a forged derivation is shown as an external payment, loudly")
    func forgedChange() throws {
        let fixture = try ReviewFixture()
        var psbt = try fixture.psbt()
        // The output pays an outside script while its derivation still claims our change index 0.
        var transaction = try psbt.unsignedTransaction()
        transaction.outputs[1] = TxOut(value: transaction.outputs[1].value, scriptPubKey: try fixture.externalScript)
        var forged = try PSBT(unsignedTransaction: transaction)
        forged.inputs = psbt.inputs
        forged.outputs = psbt.outputs
        psbt = forged
        let review = try fixture.review(psbt)
        #expect(review.analysis.outputs[1].ownership == .claimedButNotOurs)
        #expect(review.analysis.outputs[1].isExternal)
        #expect(review.analysis.warnings.contains(.changeMismatch(output: 1)))
        #expect(review.analysis.amountSent == (try Amount(sats: 99_000)))
        #expect(review.text.contains("CLAIMS TO BE CHANGE"))
    }

    @Test("a segwit v0 input without its previous transaction is refused unless allowed")
    func missingPreviousTransaction() throws {
        let fixture = try ReviewFixture()
        var psbt = try fixture.psbt()
        psbt.inputs[0].map.remove(PSBTKeyType.Input.nonWitnessUTXO)
        #expect(try fixture.review(psbt).refusals == [.missingPreviousTransaction(input: 0)])
        var policy = SigningPolicy(network: .test)
        policy.allowMissingPreviousTransaction = true
        #expect(try fixture.review(psbt, policy: policy).isAcceptable)
    }

    @Test("a witness UTXO that lies about the amount is refused")
    func amountLie() throws {
        let fixture = try ReviewFixture()
        var psbt = try fixture.psbt()
        let previous = try fixture.funding(amount: 100_000)
        psbt.setWitnessUTXO(
            TxOut(value: try Amount(sats: 2_000_000), scriptPubKey: previous.outputs[0].scriptPubKey), input: 0)
        #expect(try fixture.review(psbt).refusals.contains(.utxoMismatch(input: 0)))
        #expect(throws: PSBTError.self) { try PSBTSigner().sign(psbt, with: fixture.provider) }
    }

    @Test(
        "SIGHASH_NONE, SINGLE and ANYONECANPAY are refused", arguments: [SighashType.none, .single, .allAnyoneCanPay])
    func nonDefaultSighash(_ type: SighashType) throws {
        let fixture = try ReviewFixture()
        var psbt = try fixture.psbt()
        psbt.setSighashType(type, input: 0)
        #expect(try fixture.review(psbt).refusals == [.nonDefaultSighash(input: 0, type: type.rawValue)])
        #expect(throws: PSBTError.nonStandardSighash(type.rawValue, input: 0)) {
            try PSBTSigner().sign(psbt, with: fixture.provider)
        }
    }

    @Test("a fee rate above --max-fee-rate is refused")
    func feeRateTooHigh() throws {
        let fixture = try ReviewFixture()
        let psbt = try fixture.psbt(input: 100_000, send: 60_000, fee: 20_000)
        var policy = SigningPolicy(network: .test)
        policy.maxFeeRateSatsPerVByte = 50
        let refusals = try fixture.review(psbt, policy: policy).refusals
        #expect(refusals.count == 1)
        guard case .feeRateTooHigh(let rate, 50) = refusals.first else {
            Issue.record("expected a fee-rate refusal, got \(refusals)")
            return
        }
        #expect(rate > 100)
    }

    @Test("a fee above the amount sent is refused")
    func feeAboveAmountSent() throws {
        let fixture = try ReviewFixture()
        let psbt = try fixture.psbt(input: 100_000, send: 1_000, fee: 5_000)
        let refusals = try fixture.review(psbt).refusals
        #expect(refusals.contains(.feeAboveAmountSent(fee: try Amount(sats: 5_000), sent: try Amount(sats: 1_000))))
    }

    @Test("a testnet PSBT on a mainnet signer is refused")
    func wrongNetwork() throws {
        let fixture = try ReviewFixture(network: .test)
        let psbt = try fixture.psbt()
        let mainnet = try ReviewFixture(network: .main)
        let review = try TransactionReview(psbt, accounts: [mainnet.account], policy: SigningPolicy(network: .main))
        #expect(review.refusals.contains(.wrongNetwork(expected: .main, found: .test)))
        #expect(review.refusals.contains(.nothingToSign))
    }

    @Test("a PSBT spending only someone else's input is refused")
    func foreignInputOnly() throws {
        let fixture = try ReviewFixture()
        var psbt = try fixture.psbt()
        psbt.inputs[0].map.remove(PSBTKeyType.Input.bip32Derivation)
        let review = try fixture.review(psbt)
        #expect(review.refusals.contains(.nothingToSign))
        #expect(review.analysis.warnings.contains(.foreignInput(input: 0)))
        #expect(try PSBTSigner().sign(psbt, with: fixture.provider).signedInputs.isEmpty)
    }

    @Test("an acceptable PSBT is signed, finalized, and its signature commits to the reviewed transaction")
    func signAfterReview() throws {
        let fixture = try ReviewFixture()
        let psbt = try fixture.psbt()
        #expect(try fixture.review(psbt).isAcceptable)
        let report = try PSBTSigner().sign(psbt, with: fixture.provider)
        #expect(report.signedInputs == [0])
        var signed = report.psbt
        let complete = signed.finalize()
        #expect(complete)
        let transaction = try signed.extractTransaction()
        #expect(transaction.txid == (try psbt.unsignedTxid()))
        let witness = transaction.inputs[0].witness.items
        #expect(witness.count == 2)
        #expect(witness[1] == (try fixture.key(branch: 0, index: 0)).compressed)
        // The signature verifies against the BIP143 hash of what was reviewed.
        let previous = try fixture.funding(amount: 100_000)
        var cache = SighashCache(try psbt.unsignedTransaction(), spentOutputs: [previous.outputs[0]])
        guard case .p2wpkh(let hash) = previous.outputs[0].scriptPubKey.template else {
            Issue.record("funding is not P2WPKH")
            return
        }
        let digest = try cache.segwitV0SignatureHash(
            inputIndex: 0, scriptCode: .p2pkh(hash), amount: previous.outputs[0].value, type: .all)
        let signature = try ECDSASignature(der: witness[0].dropLast())
        #expect(try fixture.key(branch: 0, index: 0).verify(signature, digest: digest))
        #expect(signature.compact[0] < 0x80)
    }
}
