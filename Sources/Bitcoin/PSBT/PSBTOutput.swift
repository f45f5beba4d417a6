import BitcoinCrypto

/// One output's map of a PSBT, with typed views of its fields.
public struct PSBTOutput: Sendable, Hashable {
    /// The records of this output, byte for byte.
    public var map: PSBTMap

    /// An output holding `map`.
    public init(map: PSBTMap) { self.map = map }

    private typealias T = PSBTKeyType.Output

    /// The redeem script (P2SH change).
    public var redeemScript: Script? { map.value(T.redeemScript).map { Script($0) } }

    /// The witness script (P2WSH change).
    public var witnessScript: Script? { map.value(T.witnessScript).map { Script($0) } }

    /// BIP32 derivations: public key → key origin.
    public var bip32Derivations: [(publicKey: PublicKey, origin: KeyOrigin)] {
        map.entries(T.bip32Derivation).compactMap { entry in
            guard let key = try? PublicKey(serialized: entry.keyData), let origin = KeyOrigin(psbtBytes: entry.value)
            else {
                return nil
            }
            return (key, origin)
        }
    }

    /// PSBTv2: the output amount.
    public var amount: Amount? {
        guard let bytes = map.value(T.amount), bytes.count == 8 else { return nil }
        var value: UInt64 = 0
        for (i, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
        return try? Amount(sats: value)
    }

    /// PSBTv2: the output script.
    public var script: Script? { map.value(T.script).map { Script($0) } }

    /// The taproot internal key.
    public var tapInternalKey: XOnlyPublicKey? {
        map.value(T.tapInternalKey).flatMap { try? XOnlyPublicKey(serialized: $0) }
    }

    /// The taproot tree leaves in depth-first order.
    public var tapTree: [(depth: UInt8, leafVersion: UInt8, script: Script)]? {
        map.value(T.tapTree).flatMap(Self.decodeTapTree)?.map { ($0.depth, $0.leafVersion, Script($0.script)) }
    }

    /// Taproot BIP32 derivations: x-only key → (leaf hashes, key origin).
    public var tapBIP32Derivations: [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)] {
        map.entries(T.tapBIP32Derivation).compactMap { entry in
            guard let key = try? XOnlyPublicKey(serialized: entry.keyData),
                let (hashes, origin) = PSBTInput.decodeTapDerivation(entry.value)
            else { return nil }
            return (key, hashes, origin)
        }
    }

    /// Decodes PSBT_OUT_TAP_TREE: repeated (depth, leaf version, var-bytes script).
    static func decodeTapTree(_ bytes: [UInt8]) -> [(depth: UInt8, leafVersion: UInt8, script: [UInt8])]? {
        var reader = ByteReader(bytes)
        var leaves: [(depth: UInt8, leafVersion: UInt8, script: [UInt8])] = []
        while !reader.isAtEnd {
            guard let depth = try? reader.readUInt8(), let version = try? reader.readUInt8(),
                let script = try? reader.readVarBytes()
            else { return nil }
            leaves.append((depth, version, script))
        }
        return leaves
    }

    /// Whether leaves at `depths` (depth-first order) form a complete binary tree, as Core's TaprootBuilder checks.
    static func tapTreeIsComplete(_ depths: [UInt8]) -> Bool {
        // A stack of the depths of pending subtrees; two siblings at the same depth merge into their parent.
        var stack: [Int] = []
        for depth in depths {
            var current = Int(depth)
            if current > 128 { return false }
            while let top = stack.last, top == current {
                stack.removeLast()
                if current == 0 { return false }
                current -= 1
            }
            if let top = stack.last, top > current { return false }
            stack.append(current)
        }
        return stack == [0]
    }
}
