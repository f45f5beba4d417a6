import BitcoinCrypto
import Synchronization

/// One input's map of a PSBT, with typed views of its fields.
///
/// The views that cost the most to decode (the previous transaction, the BIP32 and taproot BIP32 derivations, whose
/// public keys are checked on the curve) are decoded once per map: a review and a signature read them several times
/// for every input, and a 1,445-input PSBT decoded its previous transactions five times and its keys six (issue 19's profile,
/// docs/benchmarks.md). Any change to `map` drops the decoded values.
public struct PSBTInput: Sendable, Hashable {
    /// The records of this input, byte for byte.
    public var map: PSBTMap {
        didSet { decoded = DecodedFields() }
    }

    /// Values decoded from `map`, shared by copies of an unchanged input.
    private var decoded = DecodedFields()

    /// An input holding `map`.
    public init(map: PSBTMap) { self.map = map }

    /// An input holding `map` whose previous transaction, when given, is `previous`: the parser's, decoded from the
    /// very bytes of `map`'s PSBT_IN_NON_WITNESS_UTXO for an earlier input.
    init(map: PSBTMap, previousTransaction previous: Transaction?) {
        self.map = map
        if let previous { decoded.setPreviousTransaction(previous) }
    }

    public static func == (lhs: PSBTInput, rhs: PSBTInput) -> Bool { lhs.map == rhs.map }
    public func hash(into hasher: inout Hasher) { hasher.combine(map) }

    private typealias T = PSBTKeyType.Input

    /// The full previous transaction (PSBT_IN_NON_WITNESS_UTXO).
    public var nonWitnessUTXO: Transaction? {
        decoded.previousTransaction {
            map.value(T.nonWitnessUTXO).flatMap { try? Transaction(serialized: $0) }
        }
    }

    /// The spent output (PSBT_IN_WITNESS_UTXO).
    public var witnessUTXO: TxOut? {
        map.value(T.witnessUTXO).flatMap { try? TxOut(serialized: $0) }
    }

    /// The spent output from the witness UTXO, else from the non-witness UTXO at `vout`.
    public func spentOutput(vout: UInt32) -> TxOut? {
        if let output = witnessUTXO { return output }
        guard let previous = nonWitnessUTXO, Int(vout) < previous.outputs.count else { return nil }
        return previous.outputs[Int(vout)]
    }

    /// ECDSA partial signatures by public key (signature with its sighash byte).
    public var partialSignatures: [(publicKey: PublicKey, signature: [UInt8])] {
        map.entries(T.partialSig).compactMap { entry in
            (try? PublicKey(serialized: entry.keyData)).map { ($0, entry.value) }
        }
    }

    /// The sighash type the creator asks for (PSBT_IN_SIGHASH_TYPE).
    public var sighashType: UInt32? { map.value(T.sighashType).flatMap(PSBT.uint32) }

    /// The redeem script (P2SH).
    public var redeemScript: Script? { map.value(T.redeemScript).map { Script($0) } }

    /// The witness script (P2WSH).
    public var witnessScript: Script? { map.value(T.witnessScript).map { Script($0) } }

    /// BIP32 derivations: public key → key origin.
    public var bip32Derivations: [(publicKey: PublicKey, origin: KeyOrigin)] {
        decoded.derivations {
            map.entries(T.bip32Derivation).compactMap { entry in
                guard let key = try? PublicKey(serialized: entry.keyData),
                    let origin = KeyOrigin(psbtBytes: entry.value)
                else {
                    return nil
                }
                return (key, origin)
            }
        }
    }

    /// The finalized scriptSig.
    public var finalScriptSig: Script? { map.value(T.finalScriptSig).map { Script($0) } }

    /// The finalized witness stack.
    public var finalScriptWitness: [[UInt8]]? { map.value(T.finalScriptWitness).flatMap(Self.decodeWitness) }

    /// Whether the input carries a final scriptSig or witness.
    public var isFinalized: Bool { map.contains(T.finalScriptSig) || map.contains(T.finalScriptWitness) }

    /// The taproot key-path signature.
    public var tapKeySignature: [UInt8]? { map.value(T.tapKeySig) }

    /// Taproot script-path signatures: (x-only key, leaf hash) → signature.
    public var tapScriptSignatures: [(key: XOnlyPublicKey, leafHash: [UInt8], signature: [UInt8])] {
        map.entries(T.tapScriptSig).compactMap { entry in
            guard let key = try? XOnlyPublicKey(serialized: entry.keyData.prefix(32)) else { return nil }
            return (key, Array(entry.keyData.suffix(32)), entry.value)
        }
    }

    /// Taproot leaf scripts: control block → (script, leaf version).
    public var tapLeafScripts: [(controlBlock: [UInt8], script: Script, leafVersion: UInt8)] {
        map.entries(T.tapLeafScript).compactMap { entry in
            guard let version = entry.value.last else { return nil }
            return (entry.keyData, Script(Array(entry.value.dropLast())), version)
        }
    }

    /// Taproot BIP32 derivations: x-only key → (leaf hashes, key origin).
    public var tapBIP32Derivations: [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)] {
        decoded.tapDerivations {
            map.entries(T.tapBIP32Derivation).compactMap { entry in
                guard let key = try? XOnlyPublicKey(serialized: entry.keyData),
                    let (hashes, origin) = Self.decodeTapDerivation(entry.value)
                else { return nil }
                return (key, hashes, origin)
            }
        }
    }

    /// The taproot internal key.
    public var tapInternalKey: XOnlyPublicKey? {
        map.value(T.tapInternalKey).flatMap { try? XOnlyPublicKey(serialized: $0) }
    }

    /// The taproot merkle root.
    public var tapMerkleRoot: [UInt8]? { map.value(T.tapMerkleRoot) }

    /// PSBTv2: the outpoint this input spends.
    public var previousOutpoint: OutPoint? {
        guard let txid = map.value(T.previousTxid), txid.count == 32,
            let index = map.value(T.outputIndex).flatMap(PSBT.uint32)
        else { return nil }
        guard let id = try? Txid(bytes: txid) else { return nil }
        return OutPoint(txid: id, vout: index)
    }

    /// PSBTv2: the input's sequence number.
    public var sequenceNumber: UInt32? { map.value(T.sequence).flatMap(PSBT.uint32) }

    /// Decodes a serialized witness stack (compact-size count, then var-bytes items).
    static func decodeWitness(_ bytes: [UInt8]) -> [[UInt8]]? {
        var reader = ByteReader(bytes)
        guard let count = try? reader.readCompactSize(), count <= UInt64(bytes.count) else { return nil }
        var items: [[UInt8]] = []
        for _ in 0..<count {
            guard let item = try? reader.readVarBytes() else { return nil }
            items.append(item)
        }
        return reader.isAtEnd ? items : nil
    }

    /// Encodes a witness stack.
    package static func encodeWitness(_ items: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeCompactSize(items.count)
        for item in items { writer.writeVarBytes(item) }
        return writer.bytes
    }

    /// Decodes a taproot derivation value: leaf hashes then a key origin.
    static func decodeTapDerivation(_ bytes: [UInt8]) -> ([[UInt8]], KeyOrigin)? {
        var reader = ByteReader(bytes)
        guard let count = try? reader.readCompactSize(), count <= UInt64(bytes.count / 32) else { return nil }
        var hashes: [[UInt8]] = []
        for _ in 0..<count {
            guard let hash = try? reader.read(count: 32) else { return nil }
            hashes.append(hash)
        }
        guard let origin = KeyOrigin(psbtBytes: Array(bytes[reader.offset...])) else { return nil }
        return (hashes, origin)
    }
}

/// The decoded views of one input's map, filled on first use (behind a mutex: a `PSBTInput` is `Sendable`).
private final class DecodedFields: Sendable {
    private struct State {
        var transaction: Transaction??
        var derivations: [(publicKey: PublicKey, origin: KeyOrigin)]?
        var tapDerivations: [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)]?
    }

    private let state = Mutex(State())

    func previousTransaction(_ decode: () -> Transaction?) -> Transaction? {
        if let cached = state.withLock({ $0.transaction }) { return cached }
        let value = decode()
        state.withLock { $0.transaction = .some(value) }
        return value
    }

    func tapDerivations(
        _ decode: () -> [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)]
    ) -> [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)] {
        if let cached = state.withLock({ $0.tapDerivations }) { return cached }
        let value = decode()
        state.withLock { $0.tapDerivations = value }
        return value
    }

    func setPreviousTransaction(_ transaction: Transaction) {
        state.withLock { $0.transaction = .some(transaction) }
    }

    func derivations(
        _ decode: () -> [(publicKey: PublicKey, origin: KeyOrigin)]
    ) -> [(publicKey: PublicKey, origin: KeyOrigin)] {
        if let cached = state.withLock({ $0.derivations }) { return cached }
        let value = decode()
        state.withLock { $0.derivations = value }
        return value
    }
}
