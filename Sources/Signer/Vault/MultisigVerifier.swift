import Bitcoin

/// Checks that a vault's key is one of a multisig wallet's cosigners, by re-deriving it.
enum MultisigVerifier {
    /// Finds a cosigner whose origin fingerprint is the vault's and whose xpub is what the master key derives at
    /// the origin path.
    ///
    /// - Throws: `MultisigError.notACosigner`, `.cosignerKeyMismatch`, `.networkMismatch`.
    static func check(_ wallet: MultisigWallet, master: ExtendedPrivateKey, network: Network) throws(MultisigError) {
        var mismatch: String?
        for key in try wallet.cosigners {
            guard case .extended(let extended) = key.material else { continue }
            let xpub = extended.extendedPublicKey
            guard xpub.version.network.isMainnet == network.isMainnet else {
                throw .networkMismatch(vault: network.rawValue)
            }
            guard let origin = key.origin, origin.fingerprint == master.fingerprint else { continue }
            guard let derived = try? master.derive(origin.path).extendedPublicKey,
                derived.publicKey == xpub.publicKey, derived.chainCode == xpub.chainCode
            else {
                mismatch = origin.description
                continue
            }
            return
        }
        if let mismatch { throw .cosignerKeyMismatch(path: mismatch) }
        throw .notACosigner(fingerprint: master.fingerprint.hexString)
    }
}
