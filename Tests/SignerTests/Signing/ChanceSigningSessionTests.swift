import Bitcoin
import BitcoinCrypto
import Chance
import Signer
import Testing

/// Signing Chance `multisig:` texts (docs/architecture.md section 3) in the library.
///
/// The registered `sh(sortedmulti)`
/// wallet is found by its redeem script, the amounts come from the previous transactions, and each refusal has a
/// control that is signed. The texts of an independent implementation (embit) are signed in
/// Tests/e2e/test_chance_multisig.py.
@Suite("Chance multisig: signing session: registered wallet, previous transactions, change, refusals")
struct ChanceSigningSessionTests {
    let fixture: ReviewFixture
    let wallet: MultisigWallet
    let others: [ExtendedPrivateKey]
    init() throws {
        fixture = try ReviewFixture()
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        var keys = [
            "[\(fixture.master.fingerprint)/48h/1h/0h/2h]\(try fixture.master.derive(path).extendedPublicKey.base58String)"
        ]
        var others: [ExtendedPrivateKey] = []
        for byte in [UInt8(0x31), 0x42] {
            let other = try ExtendedPrivateKey(
                seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .test)
            others.append(other)
            keys.append("[\(other.fingerprint)/48h/1h/0h/2h]\(try other.derive(path).extendedPublicKey.base58String)")
        }
        self.others = others
        wallet = try MultisigWallet(
            name: "chance", descriptor: "sh(sortedmulti(2,\(keys.map { $0 + "/<0;1>/*" }.joined(separator: ","))))")
    }

    func session(wallets: [MultisigWallet]? = nil) -> ChanceSigningSession {
        ChanceSigningSession(
            SigningSession(
                master: fixture.master, network: fixture.network, multisigWallets: wallets ?? [wallet],
                policy: SigningPolicy(network: fixture.network)))
    }

    /// A spend of receive index 5 paying 60,000 sat away and 39,000 to change index 5, and its previous transaction.
    func spend() throws -> (text: ChanceMultisig, previous: Transaction) {
        let descriptor = try wallet.descriptor
        let redeem = try Script.multisig(
            threshold: 2,
            keys: try wallet.cosigners.map { try $0.publicKey(at: 5, path: 0).key }, sorted: true)
        #expect(Script.p2sh(ScriptHash(redeem)) == (try descriptor.scriptPubKey(at: 5, path: 0)))
        let previous = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 1))],
            outputs: [
                TxOut(value: try Amount(sats: 5_000), scriptPubKey: try fixture.externalScript),
                TxOut(value: try Amount(sats: 100_000), scriptPubKey: try descriptor.scriptPubKey(at: 5, path: 0)),
            ])
        let transaction = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: previous.txid, vout: 1))],
            outputs: [
                TxOut(value: try Amount(sats: 60_000), scriptPubKey: try fixture.externalScript),
                TxOut(value: try Amount(sats: 39_000), scriptPubKey: try descriptor.scriptPubKey(at: 5, path: 1)),
            ])
        return (try ChanceMultisig(transaction: transaction, redeemScript: redeem), previous)
    }

    @Test("A registered wallet's text is reviewed with amounts and change, signed under this vault's position")
    func signed() throws {
        let (text, previous) = try spend()
        let decision = try session().review(text, previousTransactions: [previous])
        #expect(decision.decision.isApproved, "\(decision.decision.refusals)")
        #expect(decision.match?.branch == 0 && decision.match?.index == 5)
        #expect(decision.decision.review.analysis.fee == (try Amount(sats: 1_000)))
        #expect(decision.decision.review.analysis.outputs[1].isChange)
        let (signed, inputs, positions) = try decision.sign()
        #expect(inputs == [0] && positions.count == 1)
        let own = try fixture.master.derive(try DerivationPath(string: "m/48h/1h/0h/2h/0/5")).publicKey
        #expect(positions == [try #require(text.keys.firstIndex(of: own))])
        // The answer parses again: its signature verifies for that position over this transaction.
        #expect(try ChanceMultisig(string: signed.description).signedPositions == positions)
    }

    @Test("Without the previous transaction the amounts are unknown and signing is refused")
    func unknownAmounts() throws {
        let (text, _) = try spend()
        let decision = try session().review(text, previousTransactions: [])
        #expect(!decision.decision.isApproved)
        #expect(decision.decision.refusals == [.legacyAmountsUnknown([0])])
        #expect(decision.decision.review.text.contains("UNKNOWN without their previous transactions"))
    }

    @Test("A previous transaction that no input spends is refused as invalid input")
    func strayPreviousTransaction() throws {
        let (text, previous) = try spend()
        var stray = previous
        stray.lockTime = LockTime(rawValue: 7)
        #expect(throws: ChanceSigningError.self) { try session().review(text, previousTransactions: [stray]) }
    }

    @Test("A redeem script of no registered wallet is refused")
    func unregistered() throws {
        let (text, previous) = try spend()
        let decision = try session(wallets: []).review(text, previousTransactions: [previous])
        #expect(decision.decision.refusals == [.unregisteredRedeemScript])
        #expect(decision.match == nil)
    }

    @Test("An output outside the wallet is an external payment, not change")
    func changeElsewhere() throws {
        let (text, previous) = try spend()
        var transaction = text.transaction
        transaction.outputs[1].scriptPubKey = try fixture.externalScript
        let moved = try ChanceMultisig(transaction: transaction, redeemScript: text.redeemScript)
        let decision = try session().review(moved, previousTransactions: [previous])
        #expect(decision.decision.review.analysis.outputs[1].isExternal)
    }
}
