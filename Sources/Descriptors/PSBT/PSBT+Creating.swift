import Bitcoin
import BitcoinCrypto

/// A coin that a descriptor can spend: its outpoint, amount, where in the descriptor its script comes from, and
/// (optionally) the whole transaction that created it.
public struct DescriptorCoin: Sendable, Hashable {
    /// The output being spent.
    public var outpoint: OutPoint
    /// The value of that output.
    public var amount: Amount
    /// The branch of a multipath descriptor (BIP389 `<0;1>`: 0 receive, 1 change); 0 for single-path descriptors.
    public var path: Int
    /// The child index of the ranged key.
    public var index: UInt32
    /// The transaction that created the output (becomes PSBT_IN_NON_WITNESS_UTXO), or nil to give only the output.
    public var previousTransaction: Transaction?

    /// A coin at `outpoint` worth `amount`, paying the descriptor's script at `index` of branch `path`.
    public init(
        outpoint: OutPoint, amount: Amount, path: Int = 0, index: UInt32, previousTransaction: Transaction? = nil
    ) {
        self.outpoint = outpoint
        self.amount = amount
        self.path = path
        self.index = index
        self.previousTransaction = previousTransaction
    }
}

extension PSBT {
    /// A version 0 PSBT spending `coins` of `descriptor` to `outputs`, with the Updater fields a signer needs (the
    /// BIP174 Creator and Updater in one step, as a watch-only wallet builds it).
    ///
    /// Each input gets its previous transaction when the coin has one, its witness UTXO when the script is segwit or
    /// taproot, its redeem and witness scripts, and the BIP32 derivations of its keys (taproot: the internal key and
    /// its BIP371 derivation). Outputs named in `change` get the same script and derivation fields, so signers can
    /// verify them. Supported: `pkh`, `wpkh`, `sh(wpkh)`, `sh`/`wsh`/`sh(wsh)` over `multi`/`sortedmulti`,
    /// `wsh`/`sh(wsh)` miniscript (the witness script and every key's derivation), and
    /// `tr` (key only, or with a script tree such as `multi_a`: BIP371 leaf scripts with control blocks, the leaf
    /// keys' derivations with their leaf hashes, the merkle root, and on change outputs the tap tree).
    ///
    /// - Throws: `PSBTError.nonWitnessUTXOMismatch` when a coin's previous transaction has another txid or does not
    ///   pay the descriptor's script and amount at the outpoint; `.invalidValue` when the descriptor cannot be
    ///   derived there or is of an unsupported kind, or when a change output does not pay the descriptor's script.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#creator
    public init(
        spending coins: [DescriptorCoin], of descriptor: Descriptor, to outputs: [TxOut],
        change: [Int: (path: Int, index: UInt32)] = [:], version: Int32 = 2, lockTime: LockTime = .none,
        sequence: SequenceNumber = .replaceByFee
    ) throws(PSBTError) {
        let inputs = coins.map { TxIn(previousOutput: $0.outpoint, sequence: sequence) }
        try self.init(
            unsignedTransaction: Transaction(version: version, inputs: inputs, outputs: outputs, lockTime: lockTime))
        for (number, coin) in coins.enumerated() {
            let fields = try DescriptorFields(descriptor, path: coin.path, index: coin.index, location: .input(number))
            let output = TxOut(value: coin.amount, scriptPubKey: fields.scriptPubKey)
            if let previous = coin.previousTransaction {
                let vout = Int(coin.outpoint.vout)
                guard previous.txid == coin.outpoint.txid, vout < previous.outputs.count,
                    previous.outputs[vout] == output
                else { throw .nonWitnessUTXOMismatch(input: number) }
                setNonWitnessUTXO(previous, input: number)
            }
            if fields.isWitness { setWitnessUTXO(output, input: number) }
            if let script = fields.redeemScript { setRedeemScript(script, input: number) }
            if let script = fields.witnessScript { setWitnessScript(script, input: number) }
            for (key, origin) in fields.derivations { addBIP32Derivation(key, origin: origin, input: number) }
            if let (key, origin) = fields.taprootKey {
                setTapInternalKey(key, input: number)
                addTapBIP32Derivation(key, origin: origin, input: number)
            }
            if let key = fields.tapInternalKey { setTapInternalKey(key, input: number) }
            if let root = fields.tapMerkleRoot { setTapMerkleRoot(root.bytes, input: number) }
            for leaf in fields.tapLeaves {
                addTapLeafScript(
                    leaf.leaf.script, leafVersion: leaf.leaf.version, controlBlock: leaf.controlBlock, input: number)
            }
            for (key, leafHashes, origin) in fields.tapDerivations {
                addTapBIP32Derivation(key, leafHashes: leafHashes, origin: origin, input: number)
            }
        }
        for (number, position) in change.sorted(by: { $0.key < $1.key }) {
            guard outputs.indices.contains(number) else {
                throw .invalidValue(field: "change", location: .output(number), reason: "no such output")
            }
            let fields = try DescriptorFields(
                descriptor, path: position.path, index: position.index, location: .output(number))
            guard fields.scriptPubKey == outputs[number].scriptPubKey else {
                throw .invalidValue(
                    field: "change", location: .output(number),
                    reason: "the output does not pay the descriptor's script at \(position.path)/\(position.index)")
            }
            if let script = fields.redeemScript { setRedeemScript(script, output: number) }
            if let script = fields.witnessScript { setWitnessScript(script, output: number) }
            for (key, origin) in fields.derivations { addBIP32Derivation(key, origin: origin, output: number) }
            if let (key, origin) = fields.taprootKey {
                setTapInternalKey(key, output: number)
                addTapBIP32Derivation(key, origin: origin, output: number)
            }
            if let key = fields.tapInternalKey { setTapInternalKey(key, output: number) }
            if !fields.tapLeaves.isEmpty {
                setTapTree(
                    fields.tapLeaves.map { (UInt8($0.depth), $0.leaf.version, $0.leaf.script) }, output: number)
            }
            for (key, leafHashes, origin) in fields.tapDerivations {
                addTapBIP32Derivation(key, leafHashes: leafHashes, origin: origin, output: number)
            }
        }
    }
}

/// The PSBT fields of one descriptor script: scriptPubKey, redeem and witness scripts, key derivations.
private struct DescriptorFields {
    var scriptPubKey: Script
    var isWitness = false
    var redeemScript: Script?
    var witnessScript: Script?
    var derivations: [(PublicKey, KeyOrigin)] = []
    var taprootKey: (XOnlyPublicKey, KeyOrigin)?
    /// Taproot with a script tree (BIP371): the internal key, the merkle root, each leaf with its depth and control
    /// block (depth-first, left to right), and every key's derivation with the hashes of the leaves it is in.
    var tapInternalKey: XOnlyPublicKey?
    var tapMerkleRoot: TapNodeHash?
    var tapLeaves: [(leaf: TapLeaf, depth: Int, controlBlock: [UInt8])] = []
    var tapDerivations: [(XOnlyPublicKey, [[UInt8]], KeyOrigin)] = []

    init(_ descriptor: Descriptor, path: Int, index: UInt32, location: PSBTLocation) throws(PSBTError) {
        func unsupported(_ reason: String) -> PSBTError {
            .invalidValue(field: "descriptor", location: location, reason: reason)
        }
        func origin(_ key: DescriptorKey) throws(PSBTError) -> KeyOrigin {
            guard let origin = key.keyOrigin(at: index, path: path) else {
                throw unsupported("a key without an origin or extended key")
            }
            return origin
        }
        func derive(_ expression: DescriptorExpression) throws(PSBTError) -> Script {
            do {
                return try Descriptor.script(expression, index: index, path: path, tapscript: false)
            } catch {
                throw unsupported("cannot derive \(path)/\(index): \(error)")
            }
        }
        func compressedKeys(_ keys: [DescriptorKey]) throws(PSBTError) -> [(PublicKey, KeyOrigin)] {
            var result: [(PublicKey, KeyOrigin)] = []
            for key in keys {
                guard let (publicKey, compressed) = try? key.publicKey(at: index, path: path), compressed else {
                    throw unsupported("cannot derive a compressed key at \(path)/\(index)")
                }
                result.append((publicKey, try origin(key)))
            }
            return result
        }
        let expression = descriptor.expression
        scriptPubKey = try derive(expression)
        switch expression {
        case .pkh(let key):
            derivations = try compressedKeys([key])
        case .wpkh(let key):
            isWitness = true
            derivations = try compressedKeys([key])
        case .sh(.wpkh(let key)):
            isWitness = true
            redeemScript = try derive(.wpkh(key))
            derivations = try compressedKeys([key])
        case .sh(.multi(_, let keys, _)):
            redeemScript = try derive(Self.inner(expression))
            derivations = try compressedKeys(keys)
        case .wsh(.multi(_, let keys, _)):
            isWitness = true
            witnessScript = try derive(Self.inner(expression))
            derivations = try compressedKeys(keys)
        case .sh(.wsh(.multi(_, let keys, _))):
            isWitness = true
            let inner = Self.inner(Self.inner(expression))
            witnessScript = try derive(inner)
            redeemScript = try derive(.wsh(inner))
            derivations = try compressedKeys(keys)
        case .wsh(.miniscript(let miniscript)):
            // A spending policy (docs/miniscript.md): its witness script and every key's derivation.
            isWitness = true
            witnessScript = try derive(Self.inner(expression))
            derivations = try compressedKeys(miniscript.keys)
        case .sh(.wsh(.miniscript(let miniscript))):
            isWitness = true
            let inner = Self.inner(Self.inner(expression))
            witnessScript = try derive(inner)
            redeemScript = try derive(.wsh(inner))
            derivations = try compressedKeys(miniscript.keys)
        case .tr(let key, nil):
            isWitness = true
            guard let (publicKey, _) = try? key.publicKey(at: index, path: path) else {
                throw unsupported("cannot derive the internal key at \(path)/\(index)")
            }
            taprootKey = (publicKey.xOnly.key, try origin(key))
        case .tr(let key, let node?):
            isWitness = true
            try setScriptTree(internalKey: key, node, index: index, path: path, unsupported: unsupported)
        default:
            throw unsupported(
                "only pkh, wpkh, sh(wpkh), sh/wsh/sh(wsh) multisig, wsh/sh(wsh) miniscript and tr are supported")
        }
    }

    /// The BIP371 fields of `tr(KEY,TREE)`: the internal key (its derivation only when it has an origin: a NUMS key
    /// such as BIP341's H has none), every leaf with its control block, and each leaf key's derivation with the
    /// hashes of the leaves it appears in.
    private mutating func setScriptTree(
        internalKey key: DescriptorKey, _ node: DescriptorTapTree, index: UInt32, path: Int,
        unsupported: (String) -> PSBTError
    ) throws(PSBTError) {
        let internalXOnly: XOnlyPublicKey
        let tree: TapTree
        let info: TaprootSpendInfo
        do {
            internalXOnly = try key.publicKey(at: index, path: path).key.xOnly.key
            tree = try Descriptor.tapTree(node, index: index, path: path)
            info = try TaprootSpendInfo(internalKey: internalXOnly, tree: tree)
        } catch {
            throw unsupported("cannot derive the taproot tree at \(path)/\(index): \(error)")
        }
        tapInternalKey = internalXOnly
        tapMerkleRoot = info.merkleRoot
        let blocks = info.leafControlBlocks
        let depths = tree.leavesWithPaths.map(\.path.count)
        guard blocks.count == depths.count else { throw unsupported("a leaf without a control block") }
        for (number, entry) in blocks.enumerated() {
            tapLeaves.append((entry.leaf, depths[number], entry.controlBlock.serialized()))
        }
        // Keys in order of first appearance, each with the leaves it is in; the internal key first.
        var order: [XOnlyPublicKey] = []
        var entries: [XOnlyPublicKey: (leaves: [[UInt8]], origin: KeyOrigin)] = [:]
        func add(_ descriptorKey: DescriptorKey, leafHash: [UInt8]?) throws(PSBTError) {
            guard let origin = descriptorKey.keyOrigin(at: index, path: path) else {
                if leafHash == nil { return }
                throw unsupported("a leaf key without an origin or extended key")
            }
            guard let xOnly = try? descriptorKey.publicKey(at: index, path: path).key.xOnly.key else {
                throw unsupported("cannot derive a leaf key at \(path)/\(index)")
            }
            if entries[xOnly] == nil {
                order.append(xOnly)
                entries[xOnly] = ([], origin)
            }
            if let leafHash, entries[xOnly]?.leaves.contains(leafHash) == false {
                entries[xOnly]?.leaves.append(leafHash)
            }
        }
        try add(key, leafHash: nil)
        for (number, leaf) in node.leaves.enumerated() where number < blocks.count {
            let leafHash = blocks[number].leaf.hash.bytes
            for leafKey in leaf.keys { try add(leafKey, leafHash: leafHash) }
        }
        tapDerivations = order.compactMap { key in entries[key].map { (key, $0.leaves, $0.origin) } }
    }

    /// The expression inside `sh(…)` or `wsh(…)`.
    private static func inner(_ expression: DescriptorExpression) -> DescriptorExpression {
        switch expression {
        case .sh(let inner), .wsh(let inner): inner
        default: expression
        }
    }
}
