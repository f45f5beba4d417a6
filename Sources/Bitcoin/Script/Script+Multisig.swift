import BitcoinCrypto

/// Multisig scripts: CHECKMULTISIG for bare, P2SH and P2WSH, and BIP387 `multi_a` for tapscript.
extension Script {
    /// The most keys CHECKMULTISIG accepts.
    public static let maxMultisigKeys = 20
    /// The most keys a tapscript `multi_a` may have (BIP387).
    public static let maxMultiAKeys = 999

    /// `OP_k <key1> ... <keyn> OP_n OP_CHECKMULTISIG`; with `sorted`, the keys in BIP67 order (lexicographic by
    /// compressed encoding), as descriptors' `sortedmulti` asks.
    ///
    /// - Throws: `ScriptError.invalidThreshold` unless 1 ≤ threshold ≤ n ≤ 20.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0067.mediawiki
    public static func multisig(threshold: Int, keys: [PublicKey], sorted: Bool = false) throws(ScriptError) -> Script {
        guard (1...maxMultisigKeys).contains(keys.count), (1...keys.count).contains(threshold) else {
            throw .invalidThreshold(threshold: threshold, keyCount: keys.count)
        }
        let ordered = sorted ? keys.sorted { $0.compressed.lexicographicallyPrecedes($1.compressed) } : keys
        var operations: [ScriptOperation] = [.number(threshold)]
        operations += ordered.map { .push($0.compressed) }
        operations += [.number(keys.count), .op(.checkMultiSig)]
        return Script(operations)
    }

    /// Tapscript k-of-n: `<key1> OP_CHECKSIG <key2> OP_CHECKSIGADD ... <keyn> OP_CHECKSIGADD <k> OP_NUMEQUAL`;
    /// with `sorted`, the keys in lexicographic order (`sortedmulti_a`).
    ///
    /// - Throws: `ScriptError.invalidThreshold` unless 1 ≤ threshold ≤ n ≤ 999.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0387.mediawiki
    public static func multiA(threshold: Int, keys: [XOnlyPublicKey], sorted: Bool = false) throws(ScriptError)
        -> Script
    {
        guard (1...maxMultiAKeys).contains(keys.count), (1...keys.count).contains(threshold) else {
            throw .invalidThreshold(threshold: threshold, keyCount: keys.count)
        }
        let ordered = sorted ? keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) } : keys
        var operations: [ScriptOperation] = []
        for (index, key) in ordered.enumerated() {
            operations += [.push(key.bytes), .op(index == 0 ? .checkSig : .checkSigAdd)]
        }
        operations += [.number(threshold), .op(.numEqual)]
        return Script(operations)
    }
}
