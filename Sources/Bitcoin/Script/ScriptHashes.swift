import BitcoinCrypto

/// HASH160 of a public key: the commitment in P2PKH and P2WPKH outputs.
public struct PubkeyHash: Hashable, Sendable, CustomStringConvertible {
    /// The 20 hash bytes.
    public let bytes: [UInt8]

    /// Takes 20 bytes as a public-key hash.
    ///
    /// - Throws: `ScriptError.invalidHashLength`.
    public init(bytes: some Collection<UInt8>) throws(ScriptError) {
        guard bytes.count == 20 else { throw .invalidHashLength(expected: 20, actual: bytes.count) }
        self.bytes = Array(bytes)
    }

    /// HASH160 of the compressed encoding of `publicKey`.
    public init(_ publicKey: PublicKey) { bytes = Hash160.hash(publicKey.compressed) }

    /// HASH160 of arbitrary key bytes (an uncompressed key, for old P2PKH outputs).
    init(hashing keyBytes: [UInt8]) { bytes = Hash160.hash(keyBytes) }

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Lower-case hex of the hash.
    public var description: String { bytes.hexString }
}

/// HASH160 of a redeem script: the commitment in P2SH outputs (BIP16).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0016.mediawiki
public struct ScriptHash: Hashable, Sendable, CustomStringConvertible {
    /// The 20 hash bytes.
    public let bytes: [UInt8]

    /// Takes 20 bytes as a script hash.
    ///
    /// - Throws: `ScriptError.invalidHashLength`.
    public init(bytes: some Collection<UInt8>) throws(ScriptError) {
        guard bytes.count == 20 else { throw .invalidHashLength(expected: 20, actual: bytes.count) }
        self.bytes = Array(bytes)
    }

    /// HASH160 of `redeemScript`.
    public init(_ redeemScript: Script) { bytes = Hash160.hash(redeemScript.bytes) }

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Lower-case hex of the hash.
    public var description: String { bytes.hexString }
}

/// SHA-256 of a witness script: the commitment in P2WSH outputs (BIP141).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0141.mediawiki
public struct WitnessScriptHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 hash bytes.
    public let bytes: [UInt8]

    /// Takes 32 bytes as a witness script hash.
    ///
    /// - Throws: `ScriptError.invalidHashLength`.
    public init(bytes: some Collection<UInt8>) throws(ScriptError) {
        guard bytes.count == 32 else { throw .invalidHashLength(expected: 32, actual: bytes.count) }
        self.bytes = Array(bytes)
    }

    /// SHA-256 of `witnessScript`.
    public init(_ witnessScript: Script) { bytes = SHA256.hash(witnessScript.bytes) }

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Lower-case hex of the hash.
    public var description: String { bytes.hexString }
}
