import Bitcoin
import BitcoinCrypto
import Descriptors
import Signer
import Testing

/// The signing decision of issue 13 in the library, with no executable: `SigningSession.review` over PSBTs of the
/// "abandon … about" seed (ReviewFixture), each attack beside a control case that is approved.
@Suite("Signing decision (SigningSession): change of the wallet being spent, approved inputs, malformed transactions")
struct SigningSessionTests {
    let fixture: ReviewFixture
    init() throws { fixture = try ReviewFixture() }

    var session: SigningSession { session() }

    func session(_ change: (inout SigningPolicy) -> Void = { _ in }, wallets: [MultisigWallet] = []) -> SigningSession {
        var policy = SigningPolicy(network: fixture.network)
        change(&policy)
        return SigningSession(
            master: fixture.master, network: fixture.network, multisigWallets: wallets, policy: policy)
    }

    /// An output of this seed's `script` account `account`, branch `branch`, child `index`, with its derivation.
    func ownOutput(_ script: AccountScript, account: UInt32 = 0, branch: UInt32, index: UInt32) throws
        -> (Script, PublicKey, KeyOrigin)
    {
        let key = try AccountKey(master: fixture.master, script: script, account: account, network: fixture.network)
        let descriptor = try #require(key.descriptor)
        let origin = try #require(key.addressOrigin(change: branch == 1, index: index))
        return (
            try descriptor.scriptPubKey(at: index, path: Int(branch)),
            try fixture.master.derive(origin.path).publicKey, origin
        )
    }

    /// The fixture's spend (receive index `inputIndex`, 100,000 sat) with output 1 replaced by `change`.
    func spend(change: (Script, PublicKey, KeyOrigin), inputIndex: UInt32 = 0) throws -> PSBT {
        let previous = try fixture.funding(amount: 100_000, index: inputIndex)
        let transaction = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: previous.txid, vout: 0), sequence: .replaceByFee)],
            outputs: [
                TxOut(value: try Amount(sats: 60_000), scriptPubKey: try fixture.externalScript),
                TxOut(value: try Amount(sats: 39_000), scriptPubKey: change.0),
            ])
        var psbt = try PSBT(unsignedTransaction: transaction)
        psbt.setNonWitnessUTXO(previous, input: 0)
        psbt.setWitnessUTXO(previous.outputs[0], input: 0)
        psbt.addBIP32Derivation(
            try fixture.key(branch: 0, index: inputIndex), origin: try fixture.origin(branch: 0, index: inputIndex),
            input: 0)
        psbt.addBIP32Derivation(change.1, origin: change.2, output: 1)
        return psbt
    }

    @Test("control: an honest spend is approved, its change named by account and script type, and signed")
    func honest() throws {
        let decision = try session.review(try fixture.psbt())
        #expect(decision.isApproved, "\(decision.refusals)")
        #expect(decision.approvedInputs == [0])
        #expect(decision.review.analysis.outputs[1].isChange)
        #expect(decision.review.text.contains("wpkh account 0 (m/84h/1h/0h), change branch, index 0"))
        let signed = try decision.sign()
        #expect(signed.signedInputs == [0])
        #expect(signed.isComplete)
        #expect(signed.answer().inputs[0].bip32Derivations.isEmpty)  // complete: trimmed
        #expect(!signed.answer(full: true).inputs[0].bip32Derivations.isEmpty)
    }

    @Test(
        "change on another account, another script type or past the gap is an external payment",
        arguments: [
            (AccountScript.wpkh, UInt32(7), UInt32(1), UInt32(999_999)), (.wpkh, 1, 1, 0), (.pkh, 0, 1, 0),
            (.shWpkh, 0, 1, 0), (.tr, 0, 1, 0), (.wpkh, 0, 0, 2_147_483_647), (.wpkh, 0, 1, 10_004),
        ])
    func changeOutsideTheWallet(script: AccountScript, account: UInt32, branch: UInt32, index: UInt32) throws {
        let decision = try session.review(
            try spend(change: try ownOutput(script, account: account, branch: branch, index: index), inputIndex: 3))
        let output = decision.review.analysis.outputs[1]
        #expect(output.isExternal && !output.isChange)
        #expect(decision.review.analysis.amountSent == (try Amount(sats: 99_000)))
        #expect(decision.review.analysis.changeAmount == .zero)
        let loud = decision.review.analysis.warnings.contains {
            switch $0 {
            case .ownOutputOtherWallet(1, _), .ownOutputFarIndex(1, _, _): true
            default: false
            }
        }
        #expect(loud, "\(decision.review.analysis.warnings)")
        #expect(!decision.review.text.contains("CHANGE / OWN ADDRESSES"))
    }

    @Test("control: change at the inputs' highest index + 10,000 is still change", arguments: [UInt32(0), 10_003])
    func changeWithinTheGap(index: UInt32) throws {
        let decision = try session.review(
            try spend(change: try ownOutput(.wpkh, branch: 1, index: index), inputIndex: 3))
        #expect(decision.review.analysis.outputs[1].isChange)
        #expect(decision.isApproved)
    }

    @Test("an input whose script is not its claimed derivation's is refused and never approved")
    func inputMismatch() throws {
        var psbt = try fixture.psbt()
        psbt.inputs[0].map.remove(PSBTKeyType.Input.bip32Derivation)
        psbt.addBIP32Derivation(
            try fixture.key(branch: 0, index: 1), origin: try fixture.origin(branch: 0, index: 1), input: 0)
        let decision = try session.review(psbt)
        #expect(decision.refusals.contains(.inputScriptMismatch(input: 0)))
        #expect(decision.approvedInputs.isEmpty && !decision.isApproved)
        #expect(throws: SigningSessionError.self) { try decision.sign() }
    }

    /// A P2WSH coin of `<our key at receive 0> OP_CHECKSIG`: a script no registered wallet describes.
    func foreignScript() throws -> PSBT {
        let key = try fixture.key(branch: 0, index: 0)
        let witnessScript = Script([UInt8(33)] + key.compressed + [0xac])
        let previous = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 100_000), scriptPubKey: .p2wsh(WitnessScriptHash(witnessScript)))])
        var psbt = try PSBT(
            unsignedTransaction: Transaction(
                inputs: [TxIn(previousOutput: OutPoint(txid: previous.txid, vout: 0))],
                outputs: [TxOut(value: try Amount(sats: 99_000), scriptPubKey: try fixture.externalScript)]))
        psbt.setNonWitnessUTXO(previous, input: 0)
        psbt.setWitnessUTXO(previous.outputs[0], input: 0)
        psbt.inputs[0].map.set(PSBTKeyType.Input.witnessScript, value: witnessScript.bytes)
        psbt.addBIP32Derivation(key, origin: try fixture.origin(branch: 0, index: 0), input: 0)
        return psbt
    }

    @Test("a foreign-script input needs allowUnregistered; with it, exactly that input is approved and signed")
    func unregistered() throws {
        let psbt = try foreignScript()
        let strict = try session.review(psbt)
        #expect(strict.refusals.contains(.unregisteredInputs([0])))
        #expect(!strict.isApproved)
        let allowed = try session({ $0.allowUnregistered = true }).review(psbt)
        #expect(allowed.isApproved, "\(allowed.refusals)")
        #expect(allowed.approvedInputs == [0])
        #expect(try allowed.sign().signedInputs == [0])
    }

    /// Two inputs (receive 0 and 1), one output; each input asks for `sighash`.
    func twoInputsOneOutput(sighash: UInt32) throws -> PSBT {
        let coins = [try fixture.funding(amount: 50_000, index: 0), try fixture.funding(amount: 50_000, index: 1)]
        var psbt = try PSBT(
            unsignedTransaction: Transaction(
                inputs: coins.map { TxIn(previousOutput: OutPoint(txid: $0.txid, vout: 0)) },
                outputs: [TxOut(value: try Amount(sats: 99_000), scriptPubKey: try fixture.externalScript)]))
        for (index, coin) in coins.enumerated() {
            psbt.setNonWitnessUTXO(coin, input: index)
            psbt.setWitnessUTXO(coin.outputs[0], input: index)
            psbt.addBIP32Derivation(
                try fixture.key(branch: 0, index: UInt32(index)),
                origin: try fixture.origin(branch: 0, index: UInt32(index)), input: index)
            psbt.setSighashType(SighashType(rawValue: sighash), input: index)
        }
        return psbt
    }

    @Test("SIGHASH_SINGLE without a matching output is never signed, even when non-default sighashes are allowed")
    func sighashSingle() throws {
        let psbt = try twoInputsOneOutput(sighash: 3)
        let decision = try session({ $0.allowNonDefaultSighash = true }).review(psbt)
        #expect(decision.refusals == [.sighashSingleWithoutOutput(input: 1)])
        // The signer itself refuses too, whatever the caller approves.
        #expect(throws: PSBTError.self) {
            try PSBTSigner(options: SigningOptions(allowNonDefaultSighash: true)).sign(
                psbt, with: fixture.provider, only: [1])
        }
        // Control: input 0 has output 0, so SIGHASH_SINGLE there is signed once allowed.
        let control = try PSBTSigner(options: SigningOptions(allowNonDefaultSighash: true)).sign(
            psbt, with: fixture.provider, only: [0])
        #expect(control.signedInputs == [0])
    }

    @Test("the signer signs only the inputs it is told to")
    func onlyApproved() throws {
        let psbt = try twoInputsOneOutput(sighash: 1)
        let report = try PSBTSigner().sign(psbt, with: fixture.provider, only: [1])
        #expect(report.signedInputs == [1])
        #expect(report.psbt.inputs[0].partialSignatures.isEmpty)
        #expect(try PSBTSigner().sign(psbt, with: fixture.provider).signedInputs == [0, 1])
    }

    @Test("duplicate inputs and outputs summing past 21,000,000 BTC fail to parse")
    func malformed() throws {
        let coin = try fixture.funding(amount: 50_000)
        let input = TxIn(previousOutput: OutPoint(txid: coin.txid, vout: 0))
        let out = TxOut(value: try Amount(sats: 1_000), scriptPubKey: try fixture.externalScript)
        let duplicate = try PSBT(unsignedTransaction: Transaction(inputs: [input, input], outputs: [out]))
        #expect(throws: PSBTError.self) { try PSBT(anyEncoding: duplicate.serialized()) }
        let big = TxOut(value: .maxMoney, scriptPubKey: try fixture.externalScript)
        let overflow = try PSBT(unsignedTransaction: Transaction(inputs: [input], outputs: [big, big]))
        #expect(throws: PSBTError.self) { try PSBT(anyEncoding: overflow.serialized()) }
        // Control: the same transaction with one input and one big output parses.
        let control = try PSBT(unsignedTransaction: Transaction(inputs: [input], outputs: [big]))
        #expect(try PSBT(anyEncoding: control.serialized()).inputs.count == 1)
    }

    @Test("inputs summing past 21,000,000 BTC are a malformed transaction")
    func inputOverflow() throws {
        let coins = [
            try fixture.funding(amount: 20_000_000 * 100_000_000, index: 0),
            try fixture.funding(amount: 20_000_000 * 100_000_000, index: 1),
        ]
        var psbt = try PSBT(
            unsignedTransaction: Transaction(
                inputs: coins.map { TxIn(previousOutput: OutPoint(txid: $0.txid, vout: 0)) },
                outputs: [TxOut(value: try Amount(sats: 1_000), scriptPubKey: try fixture.externalScript)]))
        for (index, coin) in coins.enumerated() { psbt.setNonWitnessUTXO(coin, input: index) }
        #expect(throws: SigningSessionError.self) { try session.review(psbt) }
    }

    @Test("an output to an unknown witness version is warned about")
    func unknownWitnessVersion() throws {
        var transaction = try fixture.psbt().unsignedTransaction()
        transaction.outputs[0] = TxOut(
            value: transaction.outputs[0].value, scriptPubKey: Script([0x52, 0x20] + [UInt8](repeating: 7, count: 32)))
        var psbt = try PSBT(unsignedTransaction: transaction)
        let base = try fixture.psbt()
        psbt.inputs = base.inputs
        psbt.outputs = base.outputs
        let warnings = try session.review(psbt).review.analysis.warnings
        #expect(warnings.contains(.unknownWitnessVersion(output: 0, 2)))
        #expect(!(try session.review(base).review.analysis.warnings.contains { "\($0)".contains("witness version") }))
    }

    @Test("the fee-rate cap uses the smallest size: a foreign input's padded witness does not lower the rate")
    func feeRateOverMinimumSize() throws {
        // Ours: 100,000 in, 60,000 sent, 40,000 change; the stranger's 60,000-sat coin is all fee.
        var psbt = try fixture.psbt(input: 100_000, send: 60_000, fee: 0)
        var transaction = try psbt.unsignedTransaction()
        let stranger = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 5, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 60_000), scriptPubKey: try fixture.externalScript)])
        transaction.inputs.append(TxIn(previousOutput: OutPoint(txid: stranger.txid, vout: 0)))
        var padded = try PSBT(unsignedTransaction: transaction)
        padded.inputs[0] = psbt.inputs[0]
        padded.outputs = psbt.outputs
        padded.setWitnessUTXO(stranger.outputs[0], input: 1)
        padded.setNonWitnessUTXO(stranger, input: 1)
        // A finalized witness of one 40,000-byte item (its owner can replace it after we sign).
        padded.inputs[1].map.set(
            PSBTKeyType.Input.finalScriptWitness, value: [1, 0xfd, 0x40, 0x9c] + [UInt8](repeating: 0, count: 40_000))
        psbt = padded
        let decision = try session({ $0.maxFeeRateSatsPerVByte = 100 }).review(psbt)
        let analysis = decision.review.analysis
        #expect(try #require(analysis.feeRate) < 20)
        #expect(try #require(analysis.maximumFeeRate) > 100)
        #expect(decision.refusals.contains { if case .feeRateTooHigh = $0 { true } else { false } })
        // Control: a cap above the real maximum signs it.
        #expect(try session({ $0.maxFeeRateSatsPerVByte = 1_000 }).review(psbt).isApproved)
    }

    @Test("the absolute fee cap (0.05 BTC by default)")
    func absoluteFeeCap() throws {
        let psbt = try fixture.psbt(input: 20_000_000, send: 10_000_000, fee: 7_000_000)
        let refused = try session({ $0.maxFeeRateSatsPerVByte = 1_000_000 }).review(psbt)
        #expect(
            refused.refusals == [.feeTooHigh(fee: try Amount(sats: 7_000_000), maximum: SigningPolicy.defaultMaxFee)])
        #expect(refused.review.text.contains("the fee (0.07000000 BTC) is above the maximum of 0.05000000 BTC"))
        let allowed = try session({
            $0.maxFeeRateSatsPerVByte = 1_000_000
            $0.maxFee = try! Amount(sats: 10_000_000)
        }).review(psbt)
        #expect(allowed.isApproved, "\(allowed.refusals)")
    }

    @Test("terminal controls, direction overrides, tags and variation selectors are shown escaped")
    func displayText() {
        let shown = DisplayText.show("ok\u{1B}[2J\u{9B}x\u{202E}y\u{200B}z\n")
        #expect(shown.text == #"ok\u001b[2J\u009bx\u202ey\u200bz\u000a"#)
        #expect(shown.hadHiddenCharacters)
        #expect(DisplayText.show("a\u{E0041}\u{FE0F}b\u{2028}").text == #"a\u{e0041}\ufe0fb\u2028"#)
        #expect(DisplayText.show("line 1\nline 2\u{7F}", multiline: true).text == #"line 1\#nline 2\u007f"#)
        let plain = DisplayText.show("bcrt1qplain — ünïcode 😀")
        #expect(plain.text == "bcrt1qplain — ünïcode 😀")
        #expect(!plain.hadHiddenCharacters)
    }

    /// A BIP48 2-of-N over this seed's key and `others` extra keys from fixed seeds.
    func multisig(threshold: Int = 2, duplicateLast: Bool = false) throws -> MultisigWallet {
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        var keys = [
            "[\(fixture.master.fingerprint)/48h/1h/0h/2h]\(try fixture.master.derive(path).extendedPublicKey.base58String)"
        ]
        for byte in [UInt8(0x11), 0x22] {
            let other = try ExtendedPrivateKey(
                seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .test)
            keys.append("[\(other.fingerprint)/48h/1h/0h/2h]\(try other.derive(path).extendedPublicKey.base58String)")
        }
        if duplicateLast { keys[2] = keys[1] }
        let body = keys.map { $0 + "/<0;1>/*" }.joined(separator: ",")
        return try MultisigWallet(name: "team", descriptor: "wsh(sortedmulti(\(threshold),\(body)))")
    }

    @Test("a multisig policy names this vault's key; duplicate keys are refused; 1-of-N is warned")
    func multisigPolicy() throws {
        let policy = try MultisigPolicy(try multisig(), master: fixture.master, network: fixture.network)
        #expect(policy.cosigners.filter(\.isThisVault).count == 1)
        #expect(policy.cosigners.first(where: \.isThisVault)?.fingerprint == fixture.master.fingerprint.hexString)
        #expect(policy.warnings.isEmpty)
        #expect(policy.text.contains("policy: 2 of 3, script wsh"))
        #expect(throws: MultisigError.self) { try multisig(duplicateLast: true) }
        let single = try MultisigPolicy(try multisig(threshold: 1), master: fixture.master, network: fixture.network)
        #expect(single.warnings.count == 1)
    }

    @Test("registered multisig change is change; unregistered, its input is refused and its change external")
    func registeredMultisigChange() throws {
        let wallet = try multisig()
        let descriptor = try wallet.descriptor
        let previous = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 3, count: 32)), vout: 0))],
            outputs: [
                TxOut(value: try Amount(sats: 100_000), scriptPubKey: try descriptor.scriptPubKey(at: 2, path: 0))
            ])
        let psbt = try PSBT(
            spending: [
                DescriptorCoin(
                    outpoint: OutPoint(txid: previous.txid, vout: 0), amount: try Amount(sats: 100_000), index: 2,
                    previousTransaction: previous)
            ], of: descriptor,
            to: [
                TxOut(value: try Amount(sats: 60_000), scriptPubKey: try fixture.externalScript),
                TxOut(value: try Amount(sats: 39_000), scriptPubKey: try descriptor.scriptPubKey(at: 4, path: 1)),
            ], change: [1: (path: 1, index: 4)])
        let registered = try session(wallets: [wallet]).review(psbt)
        #expect(registered.isApproved, "\(registered.refusals)")
        #expect(registered.review.analysis.outputs[1].isChange)
        #expect(registered.review.text.contains("multisig 'team' 2 of 3 wsh"))
        let unregistered = try session.review(psbt)
        #expect(unregistered.refusals.contains(.unregisteredInputs([0])))
        #expect(unregistered.review.analysis.outputs[1].isExternal)
    }

    @Test("dice rolls: only 1-6 count, too few are refused, the mix is SHA-256 of tag, OS entropy and rolls")
    func dice() throws {
        var dice = DiceEntropy(words: 12)
        dice.add(line: "1 2 3 4 5 6 7 8 9 0 x")
        #expect(dice.count == 6)
        let os = SecretBytes(copying: [UInt8](repeating: 0xAB, count: 16))
        #expect(throws: DiceEntropy.Error.tooFewRolls(count: 6, needed: 50, words: 12)) { try dice.mix(osEntropy: os) }
        for _ in 0..<8 { dice.add(line: "654321") }
        #expect(dice.isEnough)
        // Each roll is kept as its digit character.
        let rolls = Array("123456".utf8) + (0..<8).flatMap { _ in Array("654321".utf8) }
        let expected = Array(
            SHA256.hash(Array("airlock-dice-v1".utf8) + [UInt8](repeating: 0xAB, count: 16) + rolls).prefix(16))
        let mixed = try dice.mix(osEntropy: os)
        #expect(mixed.withUnsafeBytes { Array($0) } == expected)
    }
}
