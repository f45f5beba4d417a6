import Bitcoin
import BitcoinCrypto
import Signer
import Testing

/// Miniscript policy wallets (`wsh(MINISCRIPT)`, issue 17 item 4) in registration: the policy in words with this
/// vault's key named, the key rules of multisig registration (origins, this vault a key holder), and the warning for
/// a key that can spend alone at any time. Each refusal beside its control.
extension SigningSessionTests {
    func inheritance(dadLock: Int = 10, dad: String? = nil) throws -> (MultisigWallet, [String]) {
        let keys = try cosignerKeys()
        let other = try ExtendedPrivateKey(
            seed: SecretBytes(copying: [UInt8](repeating: 0x33, count: 32)), network: .test)
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        let otherKey = "[\(other.fingerprint)/48h/1h/0h/2h]\(try other.derive(path).extendedPublicKey.base58String)"
        let dadKey = dad ?? otherKey
        let all = keys + [dadKey]
        let ranged = all.map { $0.hasPrefix("[") ? $0 + "/<0;1>/*" : $0 }
        let text =
            "wsh(or_d(multi(2,\(ranged[0]),\(ranged[1]),\(ranged[2])),and_v(v:pk(\(ranged[3])),older(\(dadLock)))))"
        return (try MultisigWallet(name: "heirs", descriptor: text), all)
    }

    @Test("miniscript wallet: registered with the policy in words, this vault's key named")
    func miniscriptRegistration() throws {
        let (wallet, keys) = try inheritance()
        #expect(wallet.scriptType == "wsh" && wallet.threshold == 0 && wallet.keyCount == 4)
        #expect(wallet.miniscript != nil && wallet.summary.hasPrefix("miniscript policy (2 of key "))
        let policy = try MultisigPolicy(wallet, master: fixture.master, network: fixture.network)
        let fingerprints = keys.map { String($0.dropFirst().prefix(8)) }
        #expect(
            policy.text.contains(
                "policy: 2 of this vault (\(fingerprints[0])), key \(fingerprints[1]), key \(fingerprints[2]); "
                    + "or key \(fingerprints[3]) after 10 blocks (about 100 minutes)"), "\(policy.text)")
        #expect(policy.warnings.isEmpty)
    }

    @Test("miniscript wallet: a key without origin is refused (control: with origins); a lone key is warned about")
    func miniscriptKeyRules() throws {
        let bare = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"  // the generator point G
        #expect(throws: MultisigError.keyWithoutOrigin) { try inheritance(dad: bare) }
        // A policy in which one cosigner alone can spend at once: registered, with the warning.
        let keys = try cosignerKeys().map { $0 + "/<0;1>/*" }
        let lone = try MultisigWallet(
            name: "lone", descriptor: "wsh(or_d(pk(\(keys[1])),and_v(v:pk(\(keys[0])),older(5))))")
        let policy = try MultisigPolicy(lone, master: fixture.master, network: fixture.network)
        #expect(policy.warnings.count == 1 && policy.warnings[0].contains("can spend ALONE, at any time"))
        // A policy of keys none of which is this vault's is refused.
        let strangers = try MultisigWallet(
            name: "x", descriptor: "wsh(or_d(pk(\(keys[1])),and_v(v:pk(\(keys[2])),older(5))))")
        #expect(throws: MultisigError.self) {
            try MultisigPolicy(strangers, master: fixture.master, network: fixture.network)
        }
    }
}
