import BitcoinCrypto

/// A Bitcoin transaction: version, inputs, outputs and lock time, with witnesses on the inputs.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0144.mediawiki
public struct Transaction: Hashable, Sendable {
    /// nVersion (1, 2 or 3 in practice).
    public var version: Int32
    /// The inputs.
    public var inputs: [TxIn]
    /// The outputs.
    public var outputs: [TxOut]
    /// nLockTime.
    public var lockTime: LockTime

    /// A transaction of these parts.
    public init(version: Int32 = 2, inputs: [TxIn], outputs: [TxOut], lockTime: LockTime = .none) {
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.lockTime = lockTime
    }

    /// Whether any input has a witness (so the segwit serialization is used).
    public var hasWitness: Bool { inputs.contains { !$0.witness.isEmpty } }

    /// The transaction id: SHA-256d of the serialization without witnesses.
    public var txid: Txid { Txid(unchecked: SHA256.doubleHash(serialized(includingWitness: false))) }

    /// The witness transaction id: SHA-256d of the full serialization (equal to the txid without witnesses).
    public var wtxid: Wtxid { Wtxid(unchecked: SHA256.doubleHash(serialized())) }

    /// The size in bytes without witness data.
    public var baseSize: Int { serialized(includingWitness: false).count }
    /// The size in bytes of the full serialization.
    public var totalSize: Int { serialized().count }
    /// The weight: base size × 3 + total size (BIP141).
    public var weight: Int { baseSize * 3 + totalSize }
    /// The virtual size: weight / 4, rounded up.
    public var vsize: Int { (weight + 3) / 4 }

    /// The sum of the output values.
    ///
    /// - Throws: `AmountError.exceedsMaxMoney`.
    public func totalOutputValue() throws(AmountError) -> Amount { try Amount.sum(outputs.map(\.value)) }
}
