import Bitcoin
import Descriptors

/// A registered multisig wallet: a name and its `wsh(sortedmulti(…))`-style or taproot `tr(KEY,multi_a(…))`
/// descriptor, kept in the vault header so that `sign` can re-derive multisig change (docs/architecture.md section 5).
public struct MultisigWallet: Sendable, Equatable {
    /// Who can spend a taproot multisig wallet on the key path, without the script.
    public enum TaprootKeyPath: Sendable, Equatable {
        /// Nobody: the internal key is BIP341's unspendable H point (or an xpub of it), as Sparrow and BDK use.
        case unspendable
        /// Cosigner `number` (1-based, descriptor order) alone.
        case cosigner(Int)
    }

    /// The user's name for the wallet.
    public let name: String
    /// The descriptor in canonical form with checksum (public keys only).
    public let descriptorText: String
    /// The required number of signatures.
    public let threshold: Int
    /// The number of cosigner keys.
    public let keyCount: Int
    /// The script form: `wsh`, `sh-wsh`, `sh`, or `tr` (taproot script path, `multi_a`/`sortedmulti_a`).
    public let scriptType: String
    /// For `tr`: who can spend on the key path.
    public let taprootKeyPath: TaprootKeyPath?
    /// The policy in words of a `wsh(MINISCRIPT)` / `sh(wsh(MINISCRIPT))` wallet (docs/miniscript.md).
    ///
    /// Keys are named by their origin fingerprint; `threshold` is then 0 and `keyCount` the number of keys.
    public let miniscriptPolicy: String?
    /// For a `tr()` wallet with miniscript leaves: each leaf's policy in words, left to right.
    ///
    /// Keys are named by their origin fingerprint (docs/miniscript.md, "Tapscript"). `threshold` is then 0 and
    /// `keyCount` the number of distinct leaf keys.
    public let tapLeafPolicies: [String]?
    /// The user's names for cosigners, by key origin fingerprint (`multisig register --cosigner FP=NAME`), in the
    /// order given; empty for a wallet registered without names (docs/signer.md).
    public let cosignerNames: [CosignerName]

    /// A cosigner's name: the master fingerprint (8 lowercase hex digits) of a key origin in the descriptor.
    public struct CosignerName: Sendable, Equatable {
        public let fingerprint: String
        public let name: String
        /// The most characters a cosigner name may have.
        public static let maximumLength = 32

        /// Checks a name as wallet names are checked (trimmed, one line, not empty) and refuses terminal controls
        /// and format characters (what `DisplayText.clean` would replace) and names over 32 characters.
        public init(fingerprint: String, name: String) throws(MultisigError) {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= Self.maximumLength, DisplayText.clean(trimmed) == trimmed else {
                throw .invalidCosignerName(name)
            }
            guard fingerprint.count == 8, let parsed = try? Fingerprint(hex: fingerprint) else {
                throw .unknownCosigner(fingerprint)
            }
            self.fingerprint = parsed.hexString
            self.name = trimmed
        }
    }

    /// The name given to the cosigner whose key origin is `key`'s, if any.
    public func cosignerName(of key: DescriptorKey) -> String? {
        guard let origin = key.origin else { return nil }
        return cosignerName(fingerprint: origin.fingerprint.hexString)
    }

    /// The name given to the cosigner with master fingerprint `fingerprint` (hex), if any.
    public func cosignerName(fingerprint: String) -> String? {
        cosignerNames.first { $0.fingerprint == fingerprint.lowercased() }?.name
    }

    /// Parses and checks a multisig descriptor.
    ///
    /// `wsh(…)`, `sh(wsh(…))` or `sh(…)` around `multi`/`sortedmulti`, or `tr(KEY,multi_a(…))` /
    /// `tr(KEY,sortedmulti_a(…))` with one leaf; public keys only, every cosigner key an extended key with an
    /// origin. A taproot internal key must be unspendable (BIP341's H, as an x-only key or an
    /// xpub of it) or one of the cosigners: any other key could spend the wallet alone.
    ///
    /// - Throws: `MultisigError`.
    /// `cosignerNames` name cosigners by their key origin fingerprint, each of which must be in the descriptor
    /// (`MultisigError.unknownCosigner`), each at most once.
    public init(name: String, descriptor: String, cosignerNames: [CosignerName] = []) throws(MultisigError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 64, !trimmed.contains(where: \.isNewline) else {
            throw .invalidName(name)
        }
        let parsed: Descriptor
        do { parsed = try Descriptor(string: descriptor.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .invalidDescriptor(String(describing: error))
        }
        guard !parsed.hasPrivateKeys else { throw .privateKeysInDescriptor }
        if case .tr(let internalKey, let tree?) = parsed.expression, !parsed.tapLeafMiniscripts.isEmpty {
            try Self.checkNames(cosignerNames, keys: tree.leaves.flatMap(\.keys))
            self = try Self.tapMiniscriptWallet(
                name: trimmed, parsed, internalKey: internalKey, tree: tree, names: cosignerNames)
            return
        }
        let (inner, type): (DescriptorExpression, String)
        var internalKey: DescriptorKey?
        switch parsed.expression {
        case .wsh(let e): (inner, type) = (e, "wsh")
        case .sh(.wsh(let e)): (inner, type) = (e, "sh-wsh")
        case .sh(let e): (inner, type) = (e, "sh")
        case .tr(let key, .leaf(let e)):
            (inner, type) = (e, "tr")
            internalKey = key
        default: throw .notMultisig
        }
        let threshold: Int
        let keys: [DescriptorKey]
        var policy: String?
        switch inner {
        case .multi(let k, let ks, _) where type != "tr": (threshold, keys) = (k, ks)
        case .multiA(let k, let ks, _) where type == "tr": (threshold, keys) = (k, ks)
        case .miniscript(let miniscript) where type == "wsh" || type == "sh-wsh":
            // A spending policy (docs/miniscript.md): the descriptor parser already refused what is not sane.
            (threshold, keys) = (0, miniscript.keys)
            policy = miniscript.policyDescription { Self.named($0, cosignerNames) }
        default: throw .notMultisig
        }
        try Self.checkNames(cosignerNames, keys: keys)
        var seen: Set<[UInt8]> = []
        for key in keys {
            guard case .extended(let extended) = key.material, let origin = key.origin else { throw .keyWithoutOrigin }
            // The same key twice makes an M-of-N that one cosigner can satisfy with fewer devices than it shows.
            guard seen.insert(extended.extendedPublicKey.publicKey.compressed).inserted else {
                throw .duplicateKey(origin.description)
            }
        }
        self.taprootKeyPath = try internalKey.map { (key) throws(MultisigError) in try Self.keyPath(key, keys) }
        self.name = trimmed
        self.descriptorText = parsed.description
        self.threshold = threshold
        self.keyCount = keys.count
        self.scriptType = type
        self.miniscriptPolicy = policy
        self.tapLeafPolicies = nil
        self.cosignerNames = cosignerNames
    }

    /// Every named fingerprint is a key origin's of `keys`, and named once.
    private static func checkNames(_ names: [CosignerName], keys: [DescriptorKey]) throws(MultisigError) {
        let fingerprints = Set(keys.compactMap { $0.origin?.fingerprint.hexString })
        var seen: Set<String> = []
        for name in names {
            guard fingerprints.contains(name.fingerprint) else { throw .unknownCosigner(name.fingerprint) }
            guard seen.insert(name.fingerprint).inserted else { throw .unknownCosigner(name.fingerprint + " (twice)") }
        }
    }

    /// The name of `key` among `names`, if given.
    private static func named(_ key: DescriptorKey, _ names: [CosignerName]) -> String? {
        guard let origin = key.origin else { return nil }
        return names.first { $0.fingerprint == origin.fingerprint.hexString }?.name
    }

    /// A `tr(KEY,TREE)` wallet whose leaves include tapscript miniscript (the descriptor parser already refused
    /// insane leaves): every leaf key an extended key with an origin, the same key in two leaves allowed (an heir's
    /// key in the recovery leaf may also be a cosigner's), the internal key unspendable or a leaf key.
    private static func tapMiniscriptWallet(
        name: String, _ parsed: Descriptor, internalKey: DescriptorKey, tree: DescriptorTapTree,
        names: [CosignerName]
    ) throws(MultisigError) -> MultisigWallet {
        func keyName(_ key: DescriptorKey) -> String { named(key, names) ?? Self.keyName(key) }
        var keys: [DescriptorKey] = []
        var seen: Set<String> = []
        for key in tree.leaves.flatMap(\.keys) {
            guard case .extended = key.material, key.origin != nil else { throw .keyWithoutOrigin }
            if seen.insert(key.string(includingPrivateKeys: false, xOnly: true)).inserted { keys.append(key) }
        }
        let policies = tree.leaves.map { leaf in
            switch leaf {
            case .miniscript(let miniscript): return miniscript.policyDescription { named($0, names) }
            case .multiA(let k, let keys, _): return "\(k) of " + keys.map(keyName).joined(separator: ", ")
            case .pk(let key): return keyName(key)
            default: return "?"
            }
        }
        return MultisigWallet(
            name: name, descriptorText: parsed.description, keyCount: keys.count,
            taprootKeyPath: try keyPath(internalKey, keys), tapLeafPolicies: policies, cosignerNames: names)
    }

    private init(
        name: String, descriptorText: String, keyCount: Int, taprootKeyPath: TaprootKeyPath,
        tapLeafPolicies: [String], cosignerNames: [CosignerName]
    ) {
        self.cosignerNames = cosignerNames
        self.name = name
        self.descriptorText = descriptorText
        self.threshold = 0
        self.keyCount = keyCount
        self.scriptType = "tr"
        self.taprootKeyPath = taprootKeyPath
        self.tapLeafPolicies = tapLeafPolicies
        self.miniscriptPolicy = nil
    }

    /// A key as the policy words name it: "key" and its origin fingerprint.
    private static func keyName(_ key: DescriptorKey) -> String {
        key.origin.map { "key \($0.fingerprint)" } ?? "key " + String(key.string(includingPrivateKeys: false).prefix(8))
    }

    /// The wallet in a few words for lists and reviews: `2 of 3, wsh`, `miniscript policy (…), wsh`, or for taproot
    /// miniscript leaves `taproot miniscript (leaf 1: …; leaf 2: …), tr`.
    public var summary: String {
        if let miniscriptPolicy { return "miniscript policy (\(miniscriptPolicy)), \(scriptType)" }
        if let tapLeafPolicies {
            let leaves = tapLeafPolicies.enumerated().map { "leaf \($0.offset + 1): \($0.element)" }
            return "taproot miniscript (" + leaves.joined(separator: "; ") + "), \(scriptType)"
        }
        return "\(threshold) of \(keyCount), \(scriptType)"
    }

    /// The miniscript of a policy wallet (nil for plain multisig).
    public var miniscript: Miniscript? { try? descriptor.miniscript }

    /// BIP341's NUMS point H: the x coordinate of a point nobody knows a discrete logarithm of.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
    public static let unspendableKey: [UInt8] = [
        0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e,
        0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0,
    ]

    /// Who the taproot internal key lets spend alone: nobody (H, or an xpub of H, whose children nobody can sign
    /// for either) or one cosigner (the same key expression as a leaf key); anything else is refused.
    static func keyPath(_ key: DescriptorKey, _ cosigners: [DescriptorKey]) throws(MultisigError) -> TaprootKeyPath {
        switch key.material {
        case .xOnly(let xOnly) where xOnly.bytes == unspendableKey: return .unspendable
        case .publicKey(let publicKey, _) where publicKey.xOnly.key.bytes == unspendableKey: return .unspendable
        case .extended(let extended) where extended.extendedPublicKey.publicKey.xOnly.key.bytes == unspendableKey:
            return .unspendable
        default: break
        }
        let text = key.string(includingPrivateKeys: false, xOnly: true)
        if let number = cosigners.firstIndex(where: { $0.string(includingPrivateKeys: false, xOnly: true) == text }) {
            return .cosigner(number + 1)
        }
        throw .foreignInternalKey(text)
    }

    /// The parsed descriptor (it was valid when this value was made).
    public var descriptor: Descriptor {
        get throws(MultisigError) {
            do { return try Descriptor(string: descriptorText) } catch {
                throw .invalidDescriptor(String(describing: error))
            }
        }
    }

    /// The cosigner keys, in descriptor order (for `tr`, the leaves' keys, each once, not the internal key).
    public var cosigners: [DescriptorKey] {
        get throws(MultisigError) {
            let expression = try descriptor.expression
            if case .tr(_, let tree?) = expression {
                // A key in two leaves (an heir's key that is also a cosigner's) is one cosigner.
                var seen: Set<String> = []
                return tree.leaves.flatMap(\.keys).filter {
                    seen.insert($0.string(includingPrivateKeys: false, xOnly: true)).inserted
                }
            }
            return expression.keys
        }
    }

    /// The script type in words for the review: `wsh`, or `taproot script path (multi_a)`.
    public var scriptDescription: String {
        if miniscriptPolicy != nil { return scriptType + " (miniscript)" }
        if let tapLeafPolicies {
            let leaves = tapLeafPolicies.enumerated().map { "leaf \($0.offset + 1): \($0.element)" }
            return "taproot script path (miniscript; " + leaves.joined(separator: "; ") + ")"
        }
        guard scriptType == "tr" else { return scriptType }
        let sorted = descriptorText.contains("sortedmulti_a(")
        return "taproot script path (\(sorted ? "sortedmulti_a" : "multi_a"))"
    }
}
