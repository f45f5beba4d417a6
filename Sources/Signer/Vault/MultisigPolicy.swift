import Bitcoin

/// What a multisig registration is asked to remember, as the user must see it before confirming (docs/architecture.md section 2):
/// M of N, the script type, each cosigner's fingerprint, derivation and xpub, and which cosigner is this vault.
public struct MultisigPolicy: Sendable {
    /// One cosigner.
    public struct Cosigner: Sendable, Equatable {
        public let fingerprint: String
        public let derivation: String
        public let xpub: String
        /// Whether this vault derives this key (checked by re-deriving it from the seed).
        public let isThisVault: Bool
        /// The user's name for this cosigner (`--cosigner FP=NAME`), if given.
        public let name: String?
    }

    public let wallet: MultisigWallet
    public let cosigners: [Cosigner]
    /// What the user should think twice about (a 1-of-N wallet: any one cosigner spends alone).
    public let warnings: [String]

    /// The policy of `wallet` for the vault with `master` on `network`.
    ///
    /// - Throws: `MultisigError.notACosigner`, `.cosignerKeyMismatch`, `.networkMismatch`.
    public init(_ wallet: MultisigWallet, master: ExtendedPrivateKey, network: Network) throws(MultisigError) {
        try MultisigVerifier.check(wallet, master: master, network: network)
        var cosigners: [Cosigner] = []
        for key in try wallet.cosigners {
            guard case .extended(let extended) = key.material, let origin = key.origin else { continue }
            let xpub = extended.extendedPublicKey
            var mine = false
            if origin.fingerprint == master.fingerprint, let derived = try? master.derive(origin.path).extendedPublicKey
            {
                mine = derived.publicKey == xpub.publicKey && derived.chainCode == xpub.chainCode
            }
            cosigners.append(
                Cosigner(
                    fingerprint: origin.fingerprint.hexString, derivation: origin.path.description,
                    xpub: xpub.base58String, isThisVault: mine,
                    name: wallet.cosignerName(fingerprint: origin.fingerprint.hexString)))
        }
        self.wallet = wallet
        self.cosigners = cosigners
        var warnings: [String] = []
        if case .cosigner(let number)? = wallet.taprootKeyPath {
            warnings.append(
                "the taproot internal key is cosigner \(number)'s: that cosigner can spend alone on the key path")
        }
        if let miniscript = wallet.miniscript {
            // Who can spend alone, at any time: worth a second look (a key alone after a timelock is the usual
            // recovery path, shown in the words).
            for (number, key) in miniscript.keys.enumerated() {
                guard let bytes = try? key.publicKey(at: 0, path: 0).key.compressed,
                    let plan = (try? miniscript.plan(keys: [bytes])) ?? nil,
                    plan.relativeTimelock == nil, plan.absoluteTimelock == nil
                else { continue }
                let who = wallet.cosignerName(of: key).map { "\($0), " } ?? ""
                warnings.append(
                    "key \(number + 1) (\(who)\(key.origin?.fingerprint.hexString ?? "?")) can spend ALONE, at any time"
                )
            }
        } else if wallet.threshold == 1 {
            warnings.append(
                "1 of \(wallet.keyCount): ANY ONE cosigner can spend alone; outputs to this wallet count as change")
        }
        self.warnings = warnings
    }

    /// The policy as text for the offline screen (names and keys cleaned of terminal controls).
    public var text: String {
        var lines = [
            "Multisig wallet '\(DisplayText.clean(wallet.name))'",
            "  policy: \(wallet.threshold) of \(wallet.keyCount), script \(wallet.scriptDescription)",
        ]
        if let miniscript = wallet.miniscript {
            lines[1] = "  policy: \(DisplayText.clean(policyWords(miniscript)))"
            lines.append("  script \(wallet.scriptDescription), \(wallet.keyCount) keys")
        }
        switch wallet.taprootKeyPath {
        case .unspendable?: lines.append("  key path: none (unspendable internal key, BIP341's H)")
        case .cosigner(let number)?:
            let mine = cosigners.indices.contains(number - 1) && cosigners[number - 1].isThisVault
            lines.append(
                "  key path: cosigner \(number)\(mine ? " (THIS VAULT)" : "") ALONE can spend without the others")
        case nil: break
        }
        lines.append("  cosigners:")
        for (number, cosigner) in cosigners.enumerated() {
            lines.append(
                "   \(number + 1). [\(cosigner.fingerprint)] \(cosigner.derivation)"
                    + (cosigner.name.map { "   \"\(DisplayText.clean($0))\"" } ?? "")
                    + (cosigner.isThisVault ? "   <-- THIS VAULT" : ""))
            lines.append("      \(DisplayText.clean(cosigner.xpub))")
        }
        for warning in warnings { lines.append("  ! \(warning)") }
        return lines.joined(separator: "\n")
    }

    /// The policy in words, this vault's key named "this vault", the others by their registered names, else by
    /// origin fingerprint.
    public func policyWords(_ miniscript: Miniscript) -> String {
        let mine = Set(cosigners.filter(\.isThisVault).map(\.xpub))
        return miniscript.policyDescription { key in
            guard case .extended(let extended) = key.material,
                mine.contains(extended.extendedPublicKey.base58String)
            else { return wallet.cosignerName(of: key) }
            return "this vault (\(key.origin?.fingerprint.hexString ?? "?"))"
        }
    }
}
