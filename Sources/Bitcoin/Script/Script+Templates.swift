import BitcoinCrypto

/// Constructors for the standard output templates.
extension Script {
    /// Pay-to-pubkey: `<key> OP_CHECKSIG`.
    public static func p2pk(_ key: PublicKey) -> Script { Script([.push(key.compressed), .op(.checkSig)]) }

    /// Pay-to-pubkey-hash: `OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG`.
    public static func p2pkh(_ hash: PubkeyHash) -> Script {
        Script([.op(.dup), .op(.hash160), .push(hash.bytes), .op(.equalVerify), .op(.checkSig)])
    }

    /// Pay-to-script-hash: `OP_HASH160 <hash> OP_EQUAL`.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0016.mediawiki
    public static func p2sh(_ hash: ScriptHash) -> Script { Script([.op(.hash160), .push(hash.bytes), .op(.equal)]) }

    /// Pay-to-witness-pubkey-hash: `OP_0 <20-byte hash>`.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0141.mediawiki
    public static func p2wpkh(_ hash: PubkeyHash) -> Script { Script([.push(.op0, []), .push(hash.bytes)]) }

    /// Pay-to-witness-script-hash: `OP_0 <32-byte hash>`.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0141.mediawiki
    public static func p2wsh(_ hash: WitnessScriptHash) -> Script { Script([.push(.op0, []), .push(hash.bytes)]) }

    /// Pay-to-taproot: `OP_1 <32-byte output key>`.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki
    public static func p2tr(outputKey: XOnlyPublicKey) -> Script { Script([.op(.op1), .push(outputKey.bytes)]) }

    /// A provably unspendable data carrier: `OP_RETURN <data>` (one push, or none for empty data).
    public static func opReturn(_ data: [UInt8]) -> Script {
        Script(data.isEmpty ? [.op(.return)] : [.op(.return), .push(data)])
    }

    /// This script wrapped in P2SH (this script as the redeem script).
    public var p2shWrapped: Script { .p2sh(ScriptHash(self)) }

    /// This script wrapped in P2WSH (this script as the witness script).
    public var p2wshWrapped: Script { .p2wsh(WitnessScriptHash(self)) }
}
