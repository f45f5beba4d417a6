import Bitcoin
import BitcoinCrypto
import Descriptors
import Signer
import Testing

/// Taproot multisig wallets (`tr(KEY,multi_a(…))`, issue 17 item 3) in the signing decision: registration rules for
/// the internal key, change of the registered wallet, script-path signatures (BIP342 sighash with the leaf hash), and
/// the per-input signature state (item 6). Each attack beside its control.
extension SigningSessionTests {
    static let nums = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"

    /// This seed's BIP48 key and two keys of fixed seeds, each `[fp/48h/1h/0h/2h]tpub…`.
    func cosignerKeys() throws -> [String] {
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        var keys = [
            "[\(fixture.master.fingerprint)/48h/1h/0h/2h]\(try fixture.master.derive(path).extendedPublicKey.base58String)"
        ]
        for byte in [UInt8(0x11), 0x22] {
            let other = try ExtendedPrivateKey(
                seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .test)
            keys.append("[\(other.fingerprint)/48h/1h/0h/2h]\(try other.derive(path).extendedPublicKey.base58String)")
        }
        return keys
    }

    func taprootMultisig(threshold: Int = 2, internalKey: String = nums, sorted: Bool = false) throws -> MultisigWallet
    {
        let body = try cosignerKeys().map { $0 + "/<0;1>/*" }.joined(separator: ",")
        let leaf = sorted ? "sortedmulti_a" : "multi_a"
        return try MultisigWallet(name: "tapteam", descriptor: "tr(\(internalKey),\(leaf)(\(threshold),\(body)))")
    }

    @Test("taproot multisig: H as internal key registers with no key path; a stranger's internal key is refused")
    func taprootInternalKey() throws {
        let wallet = try taprootMultisig()
        #expect(wallet.scriptType == "tr" && wallet.threshold == 2 && wallet.keyCount == 3)
        #expect(wallet.taprootKeyPath == .unspendable)
        #expect(try wallet.cosigners.count == 3)
        let policy = try MultisigPolicy(wallet, master: fixture.master, network: fixture.network)
        #expect(policy.text.contains("policy: 2 of 3, script taproot script path (multi_a)"))
        #expect(policy.text.contains("key path: none (unspendable internal key, BIP341's H)"))
        #expect(policy.cosigners.filter(\.isThisVault).count == 1 && policy.warnings.isEmpty)
        // Attack: an internal key nobody in the wallet holds spends everything alone.
        let stranger = try ExtendedPrivateKey(
            seed: SecretBytes(copying: [UInt8](repeating: 0x77, count: 32)), network: .test)
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        let strangerKey =
            "[\(stranger.fingerprint)/48h/1h/0h/2h]\(try stranger.derive(path).extendedPublicKey.base58String)/<0;1>/*"
        #expect {
            try taprootMultisig(internalKey: strangerKey)
        } throws: { error in
            guard case .foreignInternalKey = error as? MultisigError else { return false }
            return true
        }
        #expect(throws: MultisigError.self) {
            try taprootMultisig(internalKey: "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        }
        // Control: a cosigner as internal key registers, and the review says that cosigner can spend alone.
        let primary = try taprootMultisig(internalKey: try cosignerKeys()[1] + "/<0;1>/*")
        #expect(primary.taprootKeyPath == .cosigner(2))
        let primaryPolicy = try MultisigPolicy(primary, master: fixture.master, network: fixture.network)
        #expect(primaryPolicy.text.contains("key path: cosigner 2 ALONE can spend without the others"))
        #expect(primaryPolicy.warnings.count == 1)
    }

    /// A PSBT spending child 2 of `wallet` to the fixture's external script and `change` (index 4 of `changeOf`).
    func taprootSpend(_ wallet: MultisigWallet, changeOf: MultisigWallet) throws -> PSBT {
        let descriptor = try wallet.descriptor
        let previous = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))],
            outputs: [
                TxOut(value: try Amount(sats: 100_000), scriptPubKey: try descriptor.scriptPubKey(at: 2, path: 0))
            ])
        let changeScript = try changeOf.descriptor.scriptPubKey(at: 4, path: 1)
        var psbt = try PSBT(
            spending: [
                DescriptorCoin(
                    outpoint: OutPoint(txid: previous.txid, vout: 0), amount: try Amount(sats: 100_000), index: 2,
                    previousTransaction: previous)
            ], of: descriptor,
            to: [
                TxOut(value: try Amount(sats: 60_000), scriptPubKey: try fixture.externalScript),
                TxOut(value: try Amount(sats: 39_000), scriptPubKey: changeScript),
            ])
        // The change's BIP371 fields from the wallet it pays.
        let fields = try PSBT(
            spending: [
                DescriptorCoin(
                    outpoint: OutPoint(txid: previous.txid, vout: 0), amount: try Amount(sats: 100_000), index: 2)
            ], of: try changeOf.descriptor, to: psbt.unsignedTransaction().outputs, change: [1: (path: 1, index: 4)])
        psbt.outputs[1] = fields.outputs[1]
        return psbt
    }

    @Test("taproot multisig: registered change is change and our key signs on the script path with the leaf hash")
    func taprootChangeAndScriptPathSignature() throws {
        let wallet = try taprootMultisig()
        let psbt = try taprootSpend(wallet, changeOf: wallet)
        let decision = try session(wallets: [wallet]).review(psbt)
        #expect(decision.isApproved, "\(decision.refusals)")
        #expect(decision.review.analysis.outputs[1].isChange)
        #expect(decision.review.text.contains("multisig 'tapteam' 2 of 3 tr"))
        #expect(decision.review.text.contains("input 0 ('tapteam'): 2 of 3 (multi_a): signed by nobody yet"))
        #expect(decision.review.text.contains("\(fixture.master.fingerprint) (this vault)"))
        let signed = try decision.sign()
        #expect(!signed.isComplete)
        let input = signed.psbt.inputs[0]
        let entries = input.map.entries(PSBTKeyType.Input.tapScriptSig)
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        let leaf = try #require(input.tapLeafScripts.first)
        let leafHash = TapLeaf(tapscript: leaf.script).hash
        #expect(Array(entry.keyData.suffix(32)) == leafHash.bytes)
        // The signature verifies against the BIP342 sighash of the leaf, under the key the PSBT derives for us.
        let key = try XOnlyPublicKey(serialized: Array(entry.keyData.prefix(32)))
        let ours = input.tapBIP32Derivations.first { $0.origin.fingerprint == fixture.master.fingerprint }
        #expect(ours?.key == key)
        let transaction = try signed.psbt.unsignedTransaction()
        var cache = SighashCache(transaction, spentOutputs: [try #require(input.witnessUTXO)])
        let digest = try cache.taprootSignatureHash(inputIndex: 0, type: SighashType(rawValue: 0), leafHash: leafHash)
        #expect(entry.value.count == 64)
        #expect(key.verify(try SchnorrSignature(serialized: entry.value), message: digest))
        let status = try #require(MultisigSignatureStatus(input))
        #expect(status.signatureCount == 1 && status.missing == 1)
        #expect(status.cosigners.first { $0.hasSigned }?.fingerprint == fixture.master.fingerprint)
        // Verified against the BIP342 sighash; a corrupted copy is reported bad and not counted (attack/control).
        let verified = try #require(MultisigSignatureStatus.statuses(of: signed.psbt)[0])
        #expect(verified.cosigners.filter { $0.isValid == true }.count == 1 && verified.signatureCount == 1)
        var corrupted = signed.psbt
        var value = entry.value
        value[10] ^= 0x01
        corrupted.inputs[0].map.set(PSBTKeyType.Input.tapScriptSig, keyData: entry.keyData, value: value)
        let bad = try #require(MultisigSignatureStatus.statuses(of: corrupted)[0])
        #expect(bad.cosigners.filter(\.hasBadSignature).count == 1 && bad.signatureCount == 0 && bad.missing == 2)
    }

    @Test("taproot multisig: change to another taproot multisig of the same cosigners is an external payment")
    func taprootChangeToAnotherWallet() throws {
        let wallet = try taprootMultisig()
        let other = try taprootMultisig(threshold: 1)
        let decision = try session(wallets: [wallet]).review(try taprootSpend(wallet, changeOf: other))
        #expect(decision.review.analysis.outputs[1].isExternal)
        #expect(!decision.review.analysis.outputs[1].isChange)
        #expect(decision.review.analysis.amountSent.sats == 99_000)
        // Control: registered too, it is still not change of the wallet being spent.
        let both = try session(wallets: [wallet, other]).review(try taprootSpend(wallet, changeOf: other))
        #expect(both.review.analysis.outputs[1].isExternal)
    }

    @Test("taproot multisig with this vault's key as internal key: key path and script path signed, complete alone")
    func taprootCosignerInternalKey() throws {
        let wallet = try taprootMultisig(internalKey: try cosignerKeys()[0] + "/<0;1>/*")
        #expect(wallet.taprootKeyPath == .cosigner(1))
        let decision = try session(wallets: [wallet]).review(try taprootSpend(wallet, changeOf: wallet))
        #expect(decision.isApproved, "\(decision.refusals)")
        let signed = try decision.sign()
        let input = signed.psbt.inputs[0]
        #expect(input.tapKeySignature != nil)
        #expect(input.map.entries(PSBTKeyType.Input.tapScriptSig).count == 1)
        // The descriptor lets the internal key spend alone (the registration said so): one signature completes it.
        #expect(signed.isComplete)
        // Control: with H as internal key, this vault's signature alone is not enough.
        let nums = try taprootMultisig()
        let alone = try session(wallets: [nums]).review(try taprootSpend(nums, changeOf: nums)).sign()
        #expect(alone.psbt.inputs[0].tapKeySignature == nil && !alone.isComplete)
    }
}
