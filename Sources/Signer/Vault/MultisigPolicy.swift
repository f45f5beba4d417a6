import Bitcoin
import Descriptors

/// What a multisig registration is asked to remember, as the user must see it before confirming (docs/architecture.md section 2):
/// M of N, the script type, each cosigner's fingerprint, derivation and xpub, and which cosigner is this vault.
public struct MultisigPolicy: Sendable {
    /// One cosigner.
    public struct Cosigner: Sendable, Equatable {
        public let fingerprint: String
        public let derivation: String
        public let xpub: String
        /// Whether this vault derives this key (checked by re-deriving it from the seed at its origin path, or found
        /// among this seed's standard multisig accounts whatever origin it claims).
        public let isThisVault: Bool
        /// Where this seed derives the key when the origin does not say so (a standard account found by deriving).
        public let foundAt: String?
        /// The user's name for this cosigner (`--cosigner FP=NAME`), if given.
        public let name: String?
    }

    public let wallet: MultisigWallet
    public let cosigners: [Cosigner]
    /// What the user should think twice about (a 1-of-N wallet: any one cosigner spends alone).
    public let warnings: [String]
    /// Every way the wallet can be spent without this vault's keys, in words ("leaf 1: Dad alone after 10 blocks
    /// (about 100 minutes)"); analysed for a registration only.
    public let pathsWithoutThisVault: [String]
    /// The numbers (1-based) of the cosigner keys this vault holds: by origin fingerprint, or found among this seed's
    /// standard multisig accounts (registration only; else those whose origin re-derives).
    public let ownKeyNumbers: [Int]
    /// Whether this vault alone completes a spend, holding two or more keys.
    public let completesAlone: Bool

    /// Why the wallet is refused unless allowed (`--allow-own-keys`): this vault holds two or more of its keys.
    public var ownKeysRefusal: String? {
        Self.ownKeysRefusal(ownKeyNumbers, completesAlone: completesAlone)
    }

    static func ownKeysRefusal(_ ownKeyNumbers: [Int], completesAlone: Bool) -> String? {
        guard ownKeyNumbers.count >= 2 else { return nil }
        return "this vault holds \(ownKeyNumbers.count) of the wallet's keys (cosigners "
            + ownKeyNumbers.map(String.init).joined(separator: ", ") + "): "
            + (completesAlone
                ? "ONE SIGNER (this vault) COMPLETES THE SPEND the policy shows as needing several"
                : "this vault alone gives \(ownKeyNumbers.count) of the signatures a spend needs")
    }

    /// The policy of `wallet` for the vault with `master` on `network`.
    ///
    /// With `registration`, every spending path is analysed (`SpendingPath`) and this seed's standard multisig
    /// accounts are derived to find its keys under any origin (`StandardAccounts`).
    /// - Throws: `MultisigError.notACosigner`, `.cosignerKeyMismatch`, `.networkMismatch`.
    public init(_ wallet: MultisigWallet, master: ExtendedPrivateKey, network: Network, registration: Bool = false)
        throws(MultisigError)
    {
        try MultisigVerifier.check(wallet, master: master, network: network)
        let standard = registration ? StandardAccounts(master: master, network: network) : nil
        var cosigners: [Cosigner] = []
        var ownKeyStrings: Set<String> = []
        var ownNumbers: [Int] = []
        for key in try wallet.cosigners {
            guard case .extended(let extended) = key.material, let origin = key.origin else { continue }
            let xpub = extended.extendedPublicKey
            var mine = false
            if origin.fingerprint == master.fingerprint, let derived = try? master.derive(origin.path).extendedPublicKey
            {
                mine = derived.publicKey == xpub.publicKey && derived.chainCode == xpub.chainCode
            }
            let foundAt = mine ? nil : standard?.path(of: xpub)
            if mine || foundAt != nil || (registration && origin.fingerprint == master.fingerprint) {
                ownNumbers.append(cosigners.count + 1)
            }
            if mine || foundAt != nil { ownKeyStrings.insert(xpub.base58String) }
            cosigners.append(
                Cosigner(
                    fingerprint: origin.fingerprint.hexString, derivation: origin.path.description,
                    xpub: xpub.base58String, isThisVault: mine || foundAt != nil, foundAt: foundAt,
                    name: wallet.cosignerName(fingerprint: origin.fingerprint.hexString)))
        }
        self.wallet = wallet
        self.cosigners = cosigners
        self.ownKeyNumbers = ownNumbers
        let fingerprintHex = master.fingerprint.hexString
        func isOwn(_ key: DescriptorKey) -> Bool {
            if key.origin?.fingerprint.hexString == fingerprintHex { return true }
            guard case .extended(let extended) = key.material else { return false }
            return ownKeyStrings.contains(extended.extendedPublicKey.base58String)
        }
        var warnings: [String] = []
        var paths: [String] = []
        var completesAlone = false
        if registration, let descriptor = try? wallet.descriptor {
            let name = { (key: DescriptorKey) -> String in
                wallet.cosignerName(of: key).map { "\($0) (\(key.origin?.fingerprint.hexString ?? "?"))" }
                    ?? Self.keyName(key)
            }
            let keyPath = wallet.taprootKeyPath != .unspendable
            for path in SpendingPath.withoutOwnKeys(descriptor, keyPathSpendable: keyPath, isOwn: isOwn) {
                let words = path.words(name: name)
                paths.append(words)
                if path.isLoneKeyAtAnyTime {
                    warnings.append("WITHOUT THIS VAULT: \(words)")
                }
            }
            // Paths only this vault's keys take: two or more of them means one signer completes the spend.
            let ownOnly = SpendingPath.withoutOwnKeys(
                descriptor, keyPathSpendable: keyPath, isOwn: { !isOwn($0) })
            completesAlone = ownNumbers.count >= 2 && ownOnly.contains { $0.keys.count >= 2 }
        }
        self.pathsWithoutThisVault = paths
        self.completesAlone = completesAlone
        if case .cosigner(let number)? = wallet.taprootKeyPath {
            warnings.append(
                "the taproot internal key is cosigner \(number)'s: that cosigner can spend alone on the key path")
        }
        if !registration, let miniscript = wallet.miniscript {
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
        } else if wallet.miniscript == nil, wallet.tapLeafPolicies == nil, wallet.threshold == 1 {
            warnings.append(
                "1 of \(wallet.keyCount): ANY ONE cosigner can spend alone; outputs to this wallet count as change")
        }
        if let refusal = Self.ownKeysRefusal(ownNumbers, completesAlone: completesAlone) { warnings.append(refusal) }
        self.warnings = warnings
    }

    /// `key 2de67592` (the origin fingerprint), as the policy words name a key without a name.
    static func keyName(_ key: DescriptorKey) -> String {
        if let origin = key.origin { return "key \(origin.fingerprint.hexString)" }
        return "key " + String(key.string(includingPrivateKeys: false).prefix(8))
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
                    + (cosigner.isThisVault ? "   <-- THIS VAULT" : "")
                    + (cosigner.foundAt.map { " (this seed's key at \($0), whatever its origin says)" } ?? ""))
            lines.append("      \(DisplayText.clean(cosigner.xpub))")
        }
        if !pathsWithoutThisVault.isEmpty {
            lines.append("  spending paths WITHOUT this vault:")
            for path in pathsWithoutThisVault { lines.append("    - \(DisplayText.clean(path))") }
        }
        if wallet.miniscript != nil || wallet.tapLeafPolicies != nil || wallet.scriptType == "tr",
            pathsWithoutThisVault.isEmpty, !ownKeyNumbers.isEmpty
        {
            lines.append("  spending paths without this vault: none (every path needs this vault's key)")
        }
        let hidden = DisplayText.hasHiddenCharacters(wallet.name)
        for warning in warnings { lines.append("  ! \(DisplayText.clean(warning))") }
        if hidden { lines.append("  ! \(DisplayText.hiddenCharactersWarning)") }
        return lines.joined(separator: "\n")
    }

    /// Whether a name the policy shows held hidden characters (terminal controls, direction overrides).
    public var hasHiddenCharacters: Bool { DisplayText.hasHiddenCharacters(wallet.name) }

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

/// This seed's standard multisig account keys (BIP45 m/45', BIP48 m/48'/coin'/account'/1' and 2', BIP87
/// m/87'/coin'/account', accounts 0–99), derived once, to recognise this vault's key under any origin a wallet gives.
struct StandardAccounts {
    /// The number of accounts derived per scheme.
    static let accountCount: UInt32 = 100
    private var paths: [[UInt8]: String] = [:]

    init(master: ExtendedPrivateKey, network: Network) {
        func add(_ key: ExtendedPrivateKey, _ path: String) {
            let xpub = key.extendedPublicKey
            paths[xpub.publicKey.compressed + xpub.chainCode] = path
        }
        func hardened(_ key: ExtendedPrivateKey?, _ index: UInt32) -> ExtendedPrivateKey? {
            guard let key, let number = try? ChildNumber.hardened(index) else { return nil }
            return try? key.deriveChild(number)
        }
        let coin = network.coinType
        if let bip45 = hardened(master, 45) { add(bip45, "m/45'") }
        let bip48 = hardened(hardened(master, 48), coin)
        let bip87 = hardened(hardened(master, 87), coin)
        for account in 0..<Self.accountCount {
            let base = hardened(bip48, account)
            for type: UInt32 in [1, 2] {
                if let key = hardened(base, type) { add(key, "m/48'/\(coin)'/\(account)'/\(type)'") }
            }
            if let key = hardened(bip87, account) { add(key, "m/87'/\(coin)'/\(account)'") }
        }
    }

    /// Where this seed derives `xpub`, if it is one of these accounts.
    func path(of xpub: ExtendedPublicKey) -> String? { paths[xpub.publicKey.compressed + xpub.chainCode] }
}
