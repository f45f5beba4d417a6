import Bitcoin

/// An output script descriptor (BIP380–387, BIP389 multipath): a parsed expression tree that derives scriptPubKeys and
/// addresses at any index, and prints itself normalised with a checksum.
///
/// Private keys (WIF, xprv) are kept for signing but printed only when asked (`string(includingPrivateKeys:)`);
/// `description` is the public form.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki
public struct Descriptor: Sendable, CustomStringConvertible {
    /// The script expression tree.
    public let expression: DescriptorExpression

    /// Wraps an expression tree.
    ///
    /// - Throws: `DescriptorError.mismatchedMultipathLengths` when keys have multipath steps of different lengths.
    public init(_ expression: DescriptorExpression) throws(DescriptorError) {
        let counts = Set(expression.keys.compactMap(\.multipathCount))
        guard counts.count <= 1 else { throw .mismatchedMultipathLengths(position: 0) }
        self.expression = expression
    }

    /// Parses descriptor text, verifying the `#checksum` when present (or demanding it with `requireChecksum`).
    ///
    /// - Throws: `DescriptorError` naming what is wrong and where.
    public init(string: String, requireChecksum: Bool = false) throws(DescriptorError) {
        let body = try DescriptorChecksum.verify(string, required: requireChecksum)
        var parser = DescriptorParser(body)
        try self.init(try parser.parseDescriptor())
    }

    /// The number of BIP389 branches: the length of the `<…;…>` steps, or 1 without them.
    public var multipathCount: Int { expression.keys.lazy.compactMap(\.multipathCount).first ?? 1 }

    /// Whether any key ends in a wildcard, so that scripts depend on the index.
    public var isRanged: Bool { expression.keys.contains(where: \.isRanged) }

    /// Whether any key is private (WIF or xprv).
    public var hasPrivateKeys: Bool { expression.keys.contains(where: \.hasPrivateKey) }

    /// The miniscript of a `wsh(MINISCRIPT)` or `sh(wsh(MINISCRIPT))` descriptor, if it is one.
    public var miniscript: Miniscript? {
        switch expression {
        case .wsh(.miniscript(let miniscript)), .sh(.wsh(.miniscript(let miniscript))): miniscript
        default: nil
        }
    }

    /// The miniscripts among the leaves of a `tr()` script tree (tapscript context), left to right; empty for other
    /// descriptors and for trees of only `pk`, `multi_a` and `sortedmulti_a` leaves.
    public var tapLeafMiniscripts: [Miniscript] {
        guard case .tr(_, let tree?) = expression else { return [] }
        return tree.leaves.compactMap { leaf in
            if case .miniscript(let miniscript) = leaf { return miniscript }
            return nil
        }
    }

    /// The network the keys name: main for xpub/xprv/mainnet WIF, test for tpub/tprv/test WIF; nil for hex keys only.
    public var network: Network? {
        for key in expression.keys.flatMap(\.plainKeys) {
            switch key.material {
            case .extended(let extended): return extended.version.network
            case .wif(let wif): return wif.network
            default: continue
            }
        }
        if case .addr(let address) = expression { return address.network }
        return nil
    }

    /// The single-path descriptors of a BIP389 multipath descriptor, in order (itself when it has no multipath step).
    public func singlePathDescriptors() -> [Descriptor] {
        let count = multipathCount
        guard expression.keys.contains(where: { $0.multipathCount != nil }) else { return [self] }
        return (0..<count).map { path in Descriptor(unchecked: expression.mapKeys { $0.selecting(path: path) }) }
    }

    private init(unchecked expression: DescriptorExpression) { self.expression = expression }

    /// The descriptor text, normalised (`h` markers, xpub/tpub versions), with or without private keys and checksum.
    public func string(includingPrivateKeys: Bool = false, checksum: Bool = true) -> String {
        let body = Self.text(expression, includingPrivateKeys: includingPrivateKeys, xOnly: false)
        guard checksum, let full = try? DescriptorChecksum.adding(to: body) else { return body }
        return full
    }

    /// The public form with checksum.
    public var description: String { string() }

    private static func text(_ expression: DescriptorExpression, includingPrivateKeys: Bool, xOnly: Bool) -> String {
        func key(_ key: DescriptorKey, _ xOnly: Bool = xOnly) -> String {
            key.string(includingPrivateKeys: includingPrivateKeys, xOnly: xOnly)
        }
        func sub(_ inner: DescriptorExpression, _ xOnly: Bool = xOnly) -> String {
            text(inner, includingPrivateKeys: includingPrivateKeys, xOnly: xOnly)
        }
        func tree(_ node: DescriptorTapTree) -> String {
            switch node {
            case .leaf(let leaf): sub(leaf, true)
            case .branch(let left, let right): "{\(tree(left)),\(tree(right))}"
            }
        }
        switch expression {
        case .pk(let k): return "pk(\(key(k)))"
        case .pkh(let k): return "pkh(\(key(k)))"
        case .wpkh(let k): return "wpkh(\(key(k)))"
        case .combo(let k): return "combo(\(key(k)))"
        case .sh(let inner): return "sh(\(sub(inner)))"
        case .wsh(let inner): return "wsh(\(sub(inner)))"
        case .multi(let threshold, let keys, let sorted):
            return (sorted ? "sortedmulti(" : "multi(")
                + ([String(threshold)] + keys.map { key($0) }).joined(separator: ",") + ")"
        case .multiA(let threshold, let keys, let sorted):
            return (sorted ? "sortedmulti_a(" : "multi_a(")
                + ([String(threshold)] + keys.map { key($0, true) }).joined(separator: ",")
                + ")"
        case .raw(let script): return "raw(\(script.hexString))"
        case .addr(let address): return "addr(\(address))"
        case .tr(let internalKey, let node):
            guard let node else { return "tr(\(key(internalKey, true)))" }
            return "tr(\(key(internalKey, true)),\(tree(node)))"
        case .rawtr(let k): return "rawtr(\(key(k, true)))"
        case .miniscript(let miniscript): return miniscript.node.string { key($0) }
        }
    }
}
