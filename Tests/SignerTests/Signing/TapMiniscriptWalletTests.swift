import Bitcoin
import BitcoinCrypto
import Signer
import Testing

/// `tr()` wallets with miniscript leaves (issue 17 item 4, tapscript context) on the signer: registration with the
/// policy in words per leaf, the internal key rule (H or a leaf key), keys without origins refused; the same key in
/// two leaves allowed. Each refusal beside its control.
extension SigningSessionTests {
    func tapMiniscriptWallet(internalKey: String = nums, heirLeaf: String? = nil) throws -> MultisigWallet {
        let keys = try cosignerKeys().map { $0 + "/<0;1>/*" }
        let heir = heirLeaf ?? "and_v(v:pk(\(keys[2])),older(144))"
        return try MultisigWallet(
            name: "family", descriptor: "tr(\(internalKey),{\(heir),multi_a(2,\(keys[0]),\(keys[1]),\(keys[2]))})")
    }

    @Test("tr() miniscript leaves: registered with each leaf's policy in words; H leaves no key path")
    func tapMiniscriptRegistration() throws {
        let wallet = try tapMiniscriptWallet()
        let keys = try cosignerKeys()
        let fingerprints = keys.map { String($0.dropFirst().prefix(8)) }
        #expect(wallet.scriptType == "tr" && wallet.threshold == 0 && wallet.keyCount == 3)
        #expect(wallet.taprootKeyPath == .unspendable)
        #expect(
            wallet.tapLeafPolicies == [
                "key \(fingerprints[2]) after 144 blocks (about 24 hours)",
                "2 of key \(fingerprints[0]), key \(fingerprints[1]), key \(fingerprints[2])",
            ])
        #expect(wallet.scriptDescription.hasPrefix("taproot script path (miniscript; leaf 1: key "))
        let policy = try MultisigPolicy(wallet, master: fixture.master, network: fixture.network)
        #expect(policy.text.contains("leaf 2: 2 of key \(fingerprints[0])"))
        #expect(policy.cosigners.filter(\.isThisVault).count == 1)
        // Saved and loaded again (the vault header keeps the descriptor text): the same wallet.
        #expect(try MultisigWallet(name: "family", descriptor: wallet.descriptorText) == wallet)
    }

    @Test("tr() miniscript leaves: a stranger's internal key and a key without origin are refused; controls register")
    func tapMiniscriptRefusals() throws {
        let stranger = try ExtendedPrivateKey(
            seed: SecretBytes(copying: [UInt8](repeating: 0x77, count: 32)), network: .test)
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        let strangerKey =
            "[\(stranger.fingerprint)/48h/1h/0h/2h]\(try stranger.derive(path).extendedPublicKey.base58String)/<0;1>/*"
        #expect {
            try tapMiniscriptWallet(internalKey: strangerKey)
        } throws: { error in
            guard case .foreignInternalKey = error as? MultisigError else { return false }
            return true
        }
        // A bare key (no origin) in a leaf: no cosigner can be shown for it.
        let bare = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
        #expect(throws: MultisigError.keyWithoutOrigin) {
            try tapMiniscriptWallet(heirLeaf: "and_v(v:pk(\(bare)),older(144))")
        }
        // An insane leaf (spendable without a signature after 144 blocks) is refused by the descriptor parser.
        #expect(throws: MultisigError.self) { try tapMiniscriptWallet(heirLeaf: "older(144)") }
        // Controls: a cosigner as internal key (numbered in leaf order, each key once: the heir's key first), and the
        // stranger as the heir inside a leaf.
        let cosignerInternal = try tapMiniscriptWallet(internalKey: try cosignerKeys()[1] + "/<0;1>/*")
        #expect(cosignerInternal.taprootKeyPath == .cosigner(3))
        #expect(try cosignerInternal.cosigners.count == 3)
        let withHeir = try tapMiniscriptWallet(heirLeaf: "and_v(v:pk(\(strangerKey)),older(144))")
        #expect(withHeir.keyCount == 4)
    }
}
