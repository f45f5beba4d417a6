import Bitcoin
import BitcoinCrypto

extension Descriptor {
    /// The scriptPubKeys at child `index` of branch `path`: one, or several for `combo()` (P2PK, P2PKH, then P2WPKH and
    /// P2SH-P2WPKH for a compressed key).
    ///
    /// - Throws: `DescriptorError.derivation` (e.g. hardened steps on an xpub), `.indexOutOfRange`, `.pathOutOfRange`.
    public func scriptPubKeys(at index: UInt32 = 0, path: Int = 0) throws(DescriptorError) -> [Script] {
        guard (0..<multipathCount).contains(path) else { throw .pathOutOfRange(path: path, count: multipathCount) }
        if case .combo(let key) = expression {
            let (publicKey, compressed) = try key.publicKey(at: index, path: path)
            let bytes = compressed ? publicKey.compressed : publicKey.uncompressed
            let pk = Script([.push(bytes), .op(.checkSig)])
            let pkh = Script.p2pkh(PubkeyHash(unchecked: Hash160.hash(bytes)))
            guard compressed else { return [pk, pkh] }
            let wpkh = Script.p2wpkh(PubkeyHash(publicKey))
            return [pk, pkh, wpkh, wpkh.p2shWrapped]
        }
        return [try Self.script(expression, index: index, path: path, tapscript: false)]
    }

    /// The one scriptPubKey at child `index` of branch `path`.
    ///
    /// - Throws: `DescriptorError.multipleScripts` for `combo()`, or any error of `scriptPubKeys(at:path:)`.
    public func scriptPubKey(at index: UInt32 = 0, path: Int = 0) throws(DescriptorError) -> Script {
        let scripts = try scriptPubKeys(at: index, path: path)
        guard scripts.count == 1, let script = scripts.first else { throw .multipleScripts }
        return script
    }

    /// The address at child `index` of branch `path` on `network`.
    ///
    /// - Throws: `DescriptorError.noAddress` for scripts without an address form (`pk`, bare `multi`, most `raw`),
    ///   `.multipleScripts` for `combo()`, or a derivation error.
    public func address(at index: UInt32 = 0, path: Int = 0, network: Network) throws(DescriptorError) -> Address {
        let script = try scriptPubKey(at: index, path: path)
        guard let address = try? Address(scriptPubKey: script, network: network) else { throw .noAddress }
        return address
    }

    static func keyBytes(_ key: DescriptorKey, index: UInt32, path: Int, tapscript: Bool) throws(DescriptorError)
        -> [UInt8]
    {
        let (publicKey, compressed) = try key.publicKey(at: index, path: path)
        if tapscript { return publicKey.xOnly.key.bytes }
        return compressed ? publicKey.compressed : publicKey.uncompressed
    }

    static func script(_ expression: DescriptorExpression, index: UInt32, path: Int, tapscript: Bool)
        throws(DescriptorError) -> Script
    {
        switch expression {
        case .pk(let key):
            return Script([.push(try keyBytes(key, index: index, path: path, tapscript: tapscript)), .op(.checkSig)])
        case .pkh(let key):
            let bytes = try keyBytes(key, index: index, path: path, tapscript: false)
            return .p2pkh(PubkeyHash(unchecked: Hash160.hash(bytes)))
        case .wpkh(let key):
            let bytes = try keyBytes(key, index: index, path: path, tapscript: false)
            return .p2wpkh(PubkeyHash(unchecked: Hash160.hash(bytes)))
        case .sh(let inner):
            return try script(inner, index: index, path: path, tapscript: false).p2shWrapped
        case .wsh(let inner):
            return try script(inner, index: index, path: path, tapscript: false).p2wshWrapped
        case .multi(let threshold, let keys, let sorted):
            var pushes: [[UInt8]] = []
            for key in keys { pushes.append(try keyBytes(key, index: index, path: path, tapscript: false)) }
            if sorted { pushes.sort { $0.lexicographicallyPrecedes($1) } }
            return Script([.number(threshold)] + pushes.map { .push($0) } + [.number(keys.count), .op(.checkMultiSig)])
        case .multiA(let threshold, let keys, let sorted):
            var xOnly: [XOnlyPublicKey] = []
            for key in keys { xOnly.append(try key.publicKey(at: index, path: path).key.xOnly.key) }
            do {
                return try Script.multiA(threshold: threshold, keys: xOnly, sorted: sorted)
            } catch {
                throw .thresholdOutOfRange(threshold: threshold, keys: keys.count, position: 0)
            }
        case .combo:
            throw .multipleScripts
        case .raw(let script):
            return script
        case .addr(let address):
            return address.scriptPubKey
        case .tr(let internalKey, let node):
            let key = try internalKey.publicKey(at: index, path: path).key.xOnly.key
            let tree = try node.map { (n) throws(DescriptorError) -> TapTree in try tapTree(n, index: index, path: path)
            }
            do {
                return try TaprootSpendInfo(internalKey: key, tree: tree).scriptPubKey
            } catch {
                throw .tapTreeTooDeep(position: 0)
            }
        case .rawtr(let key):
            return .p2tr(outputKey: try key.publicKey(at: index, path: path).key.xOnly.key)
        case .miniscript(let miniscript):
            return try miniscript.script(at: index, path: path)
        }
    }

    /// The taproot tree of scripts at `index`.
    static func tapTree(_ node: DescriptorTapTree, index: UInt32, path: Int) throws(DescriptorError) -> TapTree {
        switch node {
        case .leaf(let leaf):
            return .leaf(TapLeaf(tapscript: try script(leaf, index: index, path: path, tapscript: true)))
        case .branch(let left, let right):
            return .branch(try tapTree(left, index: index, path: path), try tapTree(right, index: index, path: path))
        }
    }
}
