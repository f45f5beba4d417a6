import BitcoinCrypto

extension MuSigAggregateKey {
    /// The fixed chain code of every BIP328 synthetic xpub: SHA-256 of `MuSig2MuSig2MuSig2`.
    static let syntheticChainCode: [UInt8] = SHA256.hash(Array("MuSig2MuSig2MuSig2".utf8))

    /// The BIP328 synthetic extended public key of Q: depth 0, child number 0, no parent, and the fixed chain code,
    /// so that unhardened children of the aggregate can be derived as from any xpub.
    ///
    /// `version` only changes the text (xpub or tpub); the derived keys are the same.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0328.mediawiki
    public func extendedPublicKey(version: ExtendedKeyVersion = ExtendedKeyVersion(network: .main, isPrivate: false))
        -> ExtendedPublicKey
    {
        ExtendedPublicKey(
            unchecked: version.publicVersion, depth: 0, parentFingerprint: .zero, childNumber: ChildNumber(rawValue: 0),
            chainCode: Self.syntheticChainCode, publicKey: publicKey)
    }
}
