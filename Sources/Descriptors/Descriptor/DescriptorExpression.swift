import Bitcoin

/// The script expression tree of a descriptor.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki
public indirect enum DescriptorExpression: Sendable {
    /// `pk(KEY)`: pay to public key (BIP381).
    case pk(DescriptorKey)
    /// `pkh(KEY)`: pay to public key hash (BIP381).
    case pkh(DescriptorKey)
    /// `wpkh(KEY)`: pay to witness public key hash (BIP382).
    case wpkh(DescriptorKey)
    /// `sh(SCRIPT)`: pay to script hash (BIP381).
    case sh(DescriptorExpression)
    /// `wsh(SCRIPT)`: pay to witness script hash (BIP382).
    case wsh(DescriptorExpression)
    /// `multi(k,KEY,…)` or `sortedmulti(k,KEY,…)`: CHECKMULTISIG (BIP383).
    case multi(threshold: Int, keys: [DescriptorKey], sorted: Bool)
    /// `multi_a(k,KEY,…)` or `sortedmulti_a(k,KEY,…)`: tapscript CHECKSIGADD multisig (BIP387).
    case multiA(threshold: Int, keys: [DescriptorKey], sorted: Bool)
    /// `combo(KEY)`: P2PK, P2PKH and, for compressed keys, P2WPKH and P2SH-P2WPKH (BIP384).
    case combo(DescriptorKey)
    /// `raw(HEX)`: the script itself (BIP385).
    case raw(Script)
    /// `addr(ADDR)`: the script of an address (BIP385).
    case addr(Address)
    /// `tr(KEY)` or `tr(KEY,TREE)`: taproot output (BIP386).
    case tr(internalKey: DescriptorKey, tree: DescriptorTapTree?)
    /// `rawtr(KEY)`: taproot output with the key as output key, untweaked.
    case rawtr(DescriptorKey)
    /// A miniscript inside `wsh()` (BIP379) other than the plain `pk`, `pkh` and `multi` forms above, or in a `tr()`
    /// leaf (tapscript context) other than `pk`, `multi_a` and `sortedmulti_a`; parsed only when sane
    /// (`Miniscript.checkSane()`).
    case miniscript(Miniscript)

    /// Every key expression, in order of appearance.
    public var keys: [DescriptorKey] {
        switch self {
        case .pk(let key), .pkh(let key), .wpkh(let key), .combo(let key), .rawtr(let key): [key]
        case .sh(let inner), .wsh(let inner): inner.keys
        case .multi(_, let keys, _), .multiA(_, let keys, _): keys
        case .raw, .addr: []
        case .tr(let key, let tree): [key] + (tree?.leaves.flatMap(\.keys) ?? [])
        case .miniscript(let miniscript): miniscript.keys
        }
    }

    /// The same tree with every key replaced by `transform(key)`.
    func mapKeys(_ transform: (DescriptorKey) -> DescriptorKey) -> DescriptorExpression {
        switch self {
        case .pk(let key): .pk(transform(key))
        case .pkh(let key): .pkh(transform(key))
        case .wpkh(let key): .wpkh(transform(key))
        case .combo(let key): .combo(transform(key))
        case .rawtr(let key): .rawtr(transform(key))
        case .sh(let inner): .sh(inner.mapKeys(transform))
        case .wsh(let inner): .wsh(inner.mapKeys(transform))
        case .multi(let k, let keys, let sorted): .multi(threshold: k, keys: keys.map(transform), sorted: sorted)
        case .multiA(let k, let keys, let sorted): .multiA(threshold: k, keys: keys.map(transform), sorted: sorted)
        case .raw, .addr: self
        case .tr(let key, let tree): .tr(internalKey: transform(key), tree: tree?.mapKeys(transform))
        case .miniscript(let miniscript): .miniscript(miniscript.mapKeys(transform))
        }
    }
}

/// A `tr()` script tree: a leaf expression, or `{LEFT,RIGHT}`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0386.mediawiki
public indirect enum DescriptorTapTree: Sendable {
    /// A leaf script (`pk`, `multi_a`, `sortedmulti_a`, or a tapscript miniscript).
    case leaf(DescriptorExpression)
    /// `{left,right}`.
    case branch(DescriptorTapTree, DescriptorTapTree)

    /// The leaf expressions, left to right.
    public var leaves: [DescriptorExpression] {
        switch self {
        case .leaf(let expression): [expression]
        case .branch(let left, let right): left.leaves + right.leaves
        }
    }

    func mapKeys(_ transform: (DescriptorKey) -> DescriptorKey) -> DescriptorTapTree {
        switch self {
        case .leaf(let expression): .leaf(expression.mapKeys(transform))
        case .branch(let left, let right): .branch(left.mapKeys(transform), right.mapKeys(transform))
        }
    }
}
