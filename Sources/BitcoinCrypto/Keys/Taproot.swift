/// BIP341 key tweaking: output key Q = P + t·G with t = hashTapTweak(P ‖ merkle_root).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
public enum TaprootTweak {
    /// t = hashTapTweak(P ‖ merkleRoot), or hashTapTweak(P) for a key-path-only output.
    public static func tweak(internalKey: XOnlyPublicKey, merkleRoot: [UInt8]?) -> [UInt8] {
        TaggedHash.tapTweak.hash(internalKey.bytes + (merkleRoot ?? []))
    }
}

extension XOnlyPublicKey {
    /// The BIP341 output key for this internal key and an optional script-tree merkle root, with Q's y parity.
    ///
    /// - Throws: `KeyError.invalidTweak` in the negligible case where the tweak is out of range.
    public func taprootOutputKey(merkleRoot: [UInt8]?) throws(KeyError) -> (key: XOnlyPublicKey, parityIsOdd: Bool) {
        try adding(tweak: TaprootTweak.tweak(internalKey: self, merkleRoot: merkleRoot))
    }
}

extension PrivateKey {
    /// The private key of the BIP341 output key: d negated if P has odd y, plus the tap tweak.
    ///
    /// - Throws: `KeyError.invalidTweak` in the negligible case where the result is out of range.
    public func taprootTweaked(merkleRoot: [UInt8]?) throws(KeyError) -> PrivateKey {
        let (internalKey, odd) = publicKey.xOnly
        let base = odd ? negated() : self
        return try base.adding(tweak: TaprootTweak.tweak(internalKey: internalKey, merkleRoot: merkleRoot))
    }
}
