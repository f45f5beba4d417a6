import Bitcoin

/// The ways a wallet's coins can be spent without some keys (this vault's), for a registration review
/// (docs/threat-model.md, "Registration of wallets the user does not control").
///
/// Every spending condition is looked at: the `wsh` script (plain multisig or miniscript), and for `tr` the key path
/// and every leaf (`pk`, `multi_a`, tapscript miniscript). For each, the other keys are tried one by one (who can
/// spend alone, and after which timelock), then all together (which of them must sign). Hash locks count as not
/// satisfiable (the preimage is not known to the signer).
public struct SpendingPath: Sendable {
    /// Where the condition is: `nil` for a `wsh`/`sh` script, `key path`, or `leaf N` (1-based, left to right).
    public let place: String?
    /// The keys that sign on this path (none of them `own`).
    public let keys: [DescriptorKey]
    /// The relative timelock (`older`) the path waits for, if any.
    public let relativeTimelock: UInt32?
    /// The absolute timelock (`after`) the path waits for, if any.
    public let absoluteTimelock: UInt32?

    /// Whether one key spends alone with no timelock: worth a warning.
    public var isLoneKeyAtAnyTime: Bool { keys.count == 1 && relativeTimelock == nil && absoluteTimelock == nil }

    /// `Dad alone after 10 blocks (about 100 minutes)`, `key 2de67592 alone, at any time`, `Alice and Bob together,
    /// at any time`, with the place (`leaf 2: …`) in front when there is one; `name` gives a key's name.
    public func words(name: (DescriptorKey) -> String) -> String {
        let who =
            keys.count == 1
            ? "\(name(keys[0])) alone" : keys.map(name).joined(separator: ", ") + " together"
        let when = Miniscript.timelockWords(relative: relativeTimelock, absolute: absoluteTimelock)
        return (place.map { "\($0): " } ?? "") + who + (when.map { " \($0)" } ?? ", at any time")
    }

    /// The paths of `descriptor` that keys for which `isOwn` is false can take without any key for which it is true.
    ///
    /// Keys are compared at index 0 of the first branch (where the wallet's first address is). `keyPathSpendable`
    /// false says the taproot internal key is unspendable (BIP341's H): the key path is then no path.
    public static func withoutOwnKeys(
        _ descriptor: Descriptor, keyPathSpendable: Bool = true, isOwn: (DescriptorKey) -> Bool
    ) -> [SpendingPath] {
        var units: [(place: String?, miniscript: Miniscript)] = []
        switch descriptor.expression {
        case .wsh(let inner), .sh(.wsh(let inner)), .sh(let inner):
            if let miniscript = Self.miniscript(inner, context: .p2wsh) { units.append((nil, miniscript)) }
        case .tr(let internalKey, let tree):
            if keyPathSpendable, !isOwn(internalKey),
                let miniscript = try? Miniscript(.check(.pkK(internalKey)), context: .tapscript)
            {
                units.append(("key path", miniscript))
            }
            for (number, leaf) in (tree?.leaves ?? []).enumerated() {
                if let miniscript = Self.miniscript(leaf, context: .tapscript) {
                    units.append(("leaf \(number + 1)", miniscript))
                }
            }
        default: break
        }
        var paths: [SpendingPath] = []
        for (place, miniscript) in units {
            let tapscript = miniscript.context == .tapscript
            var others: [[UInt8]: DescriptorKey] = [:]
            for key in miniscript.keys where !isOwn(key) {
                guard let bytes = try? Descriptor.keyBytes(key, index: 0, path: 0, tapscript: tapscript) else {
                    continue
                }
                others[bytes] = key
            }
            var alone: Set<[UInt8]> = []
            for (bytes, key) in others.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                guard let plan = (try? miniscript.plan(keys: [bytes])) ?? nil else { continue }
                alone.insert(bytes)
                paths.append(
                    SpendingPath(
                        place: place, keys: [key], relativeTimelock: plan.relativeTimelock,
                        absoluteTimelock: plan.absoluteTimelock))
            }
            // Together: the cheapest way all the other keys have, unless one of them alone already spends.
            guard alone.isEmpty, others.count > 1,
                let plan = (try? miniscript.plan(keys: Set(others.keys))) ?? nil
            else { continue }
            let signers = plan.signingKeys.compactMap { others[$0] }
            guard !signers.isEmpty else { continue }
            paths.append(
                SpendingPath(
                    place: place, keys: signers, relativeTimelock: plan.relativeTimelock,
                    absoluteTimelock: plan.absoluteTimelock))
        }
        return paths
    }

    /// A script expression as a miniscript, so plain `multi`/`multi_a`/`pk` leaves are planned like the rest.
    static func miniscript(_ expression: DescriptorExpression, context: MiniscriptContext) -> Miniscript? {
        switch expression {
        case .miniscript(let miniscript): return miniscript
        case .multi(let k, let keys, _): return try? Miniscript(.multi(k, keys), context: context)
        case .multiA(let k, let keys, _): return try? Miniscript(.multiA(k, keys), context: context)
        case .pk(let key): return try? Miniscript(.check(.pkK(key)), context: context)
        case .pkh(let key): return try? Miniscript(.check(.pkH(key)), context: context)
        default: return nil
        }
    }
}
