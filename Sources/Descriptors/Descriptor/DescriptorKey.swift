import Bitcoin
import BitcoinCrypto

/// A key expression of a descriptor: an optional origin, then a hex public key, a WIF key, or an extended key with
/// derivation steps (one of which may be a BIP389 `<a;b>` multipath step) and an optional `/*` or `/*h` wildcard.
///
/// The key after the fixed steps is derived once, when the expression is parsed, for each multipath branch; deriving
/// the script of an index then costs one CKD step.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#key-expressions
public struct DescriptorKey: Sendable {
    /// What the expression holds.
    public enum Material: Sendable {
        /// A hex public key: 33 bytes compressed or 65 bytes uncompressed (`compressed` false).
        case publicKey(PublicKey, compressed: Bool)
        /// A 32-byte hex x-only key (inside `tr()` only).
        case xOnly(XOnlyPublicKey)
        /// A WIF private key.
        case wif(WIF)
        /// An extended key (any BIP32 or SLIP-132 version; printed as xpub/xprv or tpub/tprv).
        case extended(ExtendedKey)
        /// A BIP390 `musig(KEY,…)` expression (inside `tr()` only): the participant keys in the order written,
        /// aggregated after BIP327 KeySort with KeyAgg; steps after it derive from the BIP328 synthetic xpub.
        case musig([DescriptorKey])
    }

    /// A derivation step after an extended key.
    public enum Step: Sendable, Hashable {
        /// One child number.
        case child(ChildNumber)
        /// A BIP389 `<a;b;…>` step: branch `i` of the descriptor takes the `i`-th child number.
        case multipath([ChildNumber])
    }

    /// The final `/*` of a ranged key.
    public enum Wildcard: Sendable, Hashable {
        /// Not ranged.
        case none
        /// `/*`: normal children.
        case normal
        /// `/*h`: hardened children (needs a private key).
        case hardened
    }

    /// The key derived through the fixed steps of one branch: its public form, and the private one when known.
    struct Prefix: Sendable {
        let publicKey: ExtendedPublicKey
        let privateKey: ExtendedPrivateKey?
        /// The normal children's keys of `publicKey` (its HMAC keyed once, for `/*`).
        let children: NormalChildKeys

        init(publicKey: ExtendedPublicKey, privateKey: ExtendedPrivateKey?) {
            self.publicKey = publicKey
            self.privateKey = privateKey
            children = publicKey.normalChildren
        }
    }

    /// The `[fingerprint/path]` given before the key, if any.
    public let origin: KeyOrigin?
    /// The key.
    public let material: Material
    /// The derivation steps after an extended key.
    public let steps: [Step]
    /// The wildcard, if the key is ranged.
    public let wildcard: Wildcard
    /// Per multipath branch (one when there is no multipath step): the key after the fixed steps, or why it could not
    /// be derived (hardened steps on an xpub).
    let prefixes: [Result<Prefix, BIP32Error>]

    init(origin: KeyOrigin?, material: Material, steps: [Step] = [], wildcard: Wildcard = .none) {
        self.origin = origin
        self.material = material
        self.steps = steps
        self.wildcard = wildcard
        guard case .extended(let key) = material else {
            self.prefixes = []
            return
        }
        let branches =
            steps.lazy.compactMap { step -> Int? in
                if case .multipath(let numbers) = step { return numbers.count }
                return nil
            }.first ?? 1
        self.prefixes = (0..<branches).map { branch in
            Result { () throws(BIP32Error) -> Prefix in
                let path = Self.fixedPath(steps, branch: branch)
                switch key {
                case .privateKey(let root):
                    let derived = try root.derive(DerivationPath(path))
                    return Prefix(publicKey: derived.extendedPublicKey, privateKey: derived)
                case .publicKey(let root):
                    return Prefix(publicKey: try root.derive(DerivationPath(path)), privateKey: nil)
                }
            }
        }
    }

    static func fixedPath(_ steps: [Step], branch: Int) -> [ChildNumber] {
        steps.map { step in
            switch step {
            case .child(let number): number
            case .multipath(let numbers): numbers[Swift.min(branch, numbers.count - 1)]
            }
        }
    }

    /// The number of branches of a multipath key, or nil when it has no `<…>` step (for `musig()`, its own steps or,
    /// failing that, its participants').
    public var multipathCount: Int? {
        for case .multipath(let numbers) in steps { return numbers.count }
        if case .musig(let participants) = material { return participants.lazy.compactMap(\.multipathCount).first }
        return nil
    }

    /// Whether the key ends in `/*` or `/*h`, or is a `musig()` with a ranged participant.
    public var isRanged: Bool {
        if case .musig(let participants) = material, participants.contains(where: \.isRanged) { return true }
        return wildcard != .none
    }

    /// Whether the expression holds a private key (WIF or xprv), itself or as a `musig()` participant.
    public var hasPrivateKey: Bool {
        switch material {
        case .wif: true
        case .extended(.privateKey): true
        case .musig(let participants): participants.contains(where: \.hasPrivateKey)
        default: false
        }
    }

    /// The key itself, or the participant keys of a `musig()` expression.
    public var plainKeys: [DescriptorKey] {
        if case .musig(let participants) = material { return participants }
        return [self]
    }

    /// The single-path key of branch `path` (the key itself when it has no multipath step).
    public func selecting(path: Int) -> DescriptorKey {
        guard multipathCount != nil else { return self }
        let single = steps.map { step -> Step in
            if case .multipath(let numbers) = step { return .child(numbers[Swift.min(path, numbers.count - 1)]) }
            return step
        }
        var selected = material
        if case .musig(let participants) = material { selected = .musig(participants.map { $0.selecting(path: path) }) }
        return DescriptorKey(origin: origin, material: selected, steps: single, wildcard: wildcard)
    }

    /// The public key at child `index` of branch `path`, and whether scripts use it compressed.
    ///
    /// - Throws: `DescriptorError.derivation` (hardened steps on a public key), `.indexOutOfRange` (index ≥ 2^31)
    ///   or `.pathOutOfRange`.
    public func publicKey(at index: UInt32 = 0, path: Int = 0) throws(DescriptorError) -> (
        key: PublicKey, compressed: Bool
    ) {
        switch material {
        case .publicKey(let key, let compressed): return (key, compressed)
        case .xOnly(let key): return (key.evenPublicKey, true)
        case .wif(let wif): return (wif.publicKey, wif.isCompressed)
        case .musig(let participants): return (try muSigPublicKey(participants, at: index, path: path), true)
        case .extended:
            // A key without a multipath step is the same key on every branch of a multipath descriptor.
            let branch = prefixes.count == 1 ? 0 : path
            guard prefixes.indices.contains(branch) else { throw .pathOutOfRange(path: path, count: prefixes.count) }
            let prefix: Prefix
            switch prefixes[branch] {
            case .success(let value): prefix = value
            case .failure(let error): throw .derivation(error)
            }
            do {
                switch wildcard {
                case .none:
                    return (prefix.publicKey.publicKey, true)
                case .normal:
                    guard index < ChildNumber.hardenedOffset else { throw DescriptorError.indexOutOfRange(index) }
                    return (try prefix.children.publicKey(ChildNumber(rawValue: index)), true)
                case .hardened:
                    guard index < ChildNumber.hardenedOffset else { throw DescriptorError.indexOutOfRange(index) }
                    let number = ChildNumber(rawValue: index | ChildNumber.hardenedOffset)
                    guard let privateKey = prefix.privateKey else {
                        throw DescriptorError.derivation(.hardenedDerivationFromPublicKey(number))
                    }
                    return (try privateKey.deriveChild(number).publicKey, true)
                }
            } catch let error as DescriptorError {
                throw error
            } catch let error as BIP32Error {
                throw .derivation(error)
            } catch {
                throw .derivation(.invalidChild(ChildNumber(rawValue: index)))
            }
        }
    }

    /// The origin of the key at child `index` of branch `path` (master fingerprint and full path), for PSBT derivation
    /// fields; for a key without a given origin, the key's own fingerprint and the steps after it.
    ///
    /// A `musig()` aggregate has no origin of its own (its participants do).
    public func keyOrigin(at index: UInt32 = 0, path: Int = 0) -> KeyOrigin? {
        if case .musig = material { return nil }
        var numbers = Self.fixedPath(steps, branch: path)
        switch wildcard {
        case .none: break
        case .normal: numbers.append(ChildNumber(rawValue: index & ~ChildNumber.hardenedOffset))
        case .hardened: numbers.append(ChildNumber(rawValue: index | ChildNumber.hardenedOffset))
        }
        if let origin {
            guard let path = try? DerivationPath(origin.path.components + numbers) else { return nil }
            return KeyOrigin(fingerprint: origin.fingerprint, path: path)
        }
        guard case .extended(let key) = material, let path = try? DerivationPath(numbers) else { return nil }
        return KeyOrigin(fingerprint: key.extendedPublicKey.fingerprint, path: path)
    }
}
