import BitcoinCrypto

/// A partially signed Bitcoin transaction (BIP174 version 0, or BIP370 version 2).
///
/// The maps keep every record byte for byte (unknown and proprietary ones included); the typed views on
/// `PSBTInput`, `PSBTOutput` and here read from them. Parsing validates every known field the way Bitcoin Core does.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki
public struct PSBT: Sendable, Hashable {
    /// The PSBT version: 0 (BIP174) or 2 (BIP370).
    public internal(set) var version: UInt32
    /// The global map.
    public var global: PSBTMap
    /// One map per transaction input.
    public var inputs: [PSBTInput]
    /// One map per transaction output.
    public var outputs: [PSBTOutput]

    /// The magic bytes every PSBT starts with.
    public static let magic: [UInt8] = [0x70, 0x73, 0x62, 0x74, 0xFF]

    /// A PSBT from its parts, as the parser or a creator assembles it.
    init(version: UInt32, global: PSBTMap, inputs: [PSBTInput], outputs: [PSBTOutput]) {
        self.version = version
        self.global = global
        self.inputs = inputs
        self.outputs = outputs
    }

    /// A version 0 PSBT for `transaction`, whose scriptSigs and witnesses must be empty (the BIP174 Creator).
    ///
    /// - Throws: `PSBTError.invalidUnsignedTransaction` when an input carries a scriptSig or witness.
    public init(unsignedTransaction transaction: Transaction) throws(PSBTError) {
        for input in transaction.inputs where !input.scriptSig.bytes.isEmpty || !input.witness.isEmpty {
            throw .invalidUnsignedTransaction(reason: "Unsigned tx does not have empty scriptSigs and scriptWitnesses.")
        }
        var global = PSBTMap()
        global.set(PSBTKeyType.Global.unsignedTx, value: transaction.serialized(includingWitness: false))
        self.init(
            version: 0, global: global,
            inputs: transaction.inputs.map { _ in PSBTInput(map: PSBTMap()) },
            outputs: transaction.outputs.map { _ in PSBTOutput(map: PSBTMap()) })
    }

    /// The transaction being signed, without scriptSigs or witnesses (v0: the global unsigned tx; v2: assembled from
    /// the per-input and per-output fields, with the locktime BIP370 determines).
    ///
    /// - Throws: `PSBTError.conflictingLocktimes` for a v2 PSBT whose inputs' locktime requirements conflict.
    public func unsignedTransaction() throws(PSBTError) -> Transaction {
        if version == 0 {
            guard let bytes = global.value(PSBTKeyType.Global.unsignedTx),
                let tx = try? Transaction(legacySerialized: bytes)
            else { throw .missingUnsignedTransaction }
            return tx
        }
        let txVersion = global.value(PSBTKeyType.Global.txVersion).flatMap(Self.uint32) ?? 2
        let locktime = try computedLocktime()
        var txInputs: [TxIn] = []
        for (index, input) in inputs.enumerated() {
            guard let outpoint = input.previousOutpoint else {
                throw .missingRequiredField(field: "PSBT_IN_PREVIOUS_TXID", location: .input(index))
            }
            txInputs.append(
                TxIn(previousOutput: outpoint, sequence: SequenceNumber(rawValue: input.sequenceNumber ?? 0xFFFF_FFFF)))
        }
        let txOutputs = outputs.map { output in
            TxOut(value: output.amount ?? Amount.zero, scriptPubKey: output.script ?? Script.empty)
        }
        return Transaction(
            version: Int32(bitPattern: txVersion), inputs: txInputs, outputs: txOutputs,
            lockTime: LockTime(rawValue: locktime))
    }

    /// The txid of the unsigned transaction (what the PSBT will spend as, for non-malleable inputs).
    public func unsignedTxid() throws(PSBTError) -> Txid { try unsignedTransaction().txid }

    /// The locktime of a v2 PSBT per BIP370: the maximum of the required locktimes of the kind every input accepts,
    /// else the fallback locktime (default 0).
    ///
    /// - Throws: `PSBTError.conflictingLocktimes` when some inputs need a height and others a time.
    public func computedLocktime() throws(PSBTError) -> UInt32 {
        if version == 0 { return (try? unsignedTransaction().lockTime.rawValue) ?? 0 }
        let fallback = global.value(PSBTKeyType.Global.fallbackLocktime).flatMap(Self.uint32) ?? 0
        var heights: [UInt32] = []
        var times: [UInt32] = []
        var heightOK = true
        var timeOK = true
        var anyRequirement = false
        for input in inputs {
            let height = input.map.value(PSBTKeyType.Input.requiredHeightLocktime).flatMap(Self.uint32)
            let time = input.map.value(PSBTKeyType.Input.requiredTimeLocktime).flatMap(Self.uint32)
            if height == nil && time == nil { continue }
            anyRequirement = true
            if let height { heights.append(height) } else { heightOK = false }
            if let time { times.append(time) } else { timeOK = false }
        }
        guard anyRequirement else { return fallback }
        if heightOK { return heights.max() ?? fallback }  // height preferred when both are possible
        if timeOK { return times.max() ?? fallback }
        throw .conflictingLocktimes
    }

    static func uint32(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count == 4 else { return nil }
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    static func uint32Bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
