import Bitcoin

/// Errors from reading or registering a multisig wallet.
public enum MultisigError: Error, Equatable, Sendable {
    /// A name that is empty, longer than 64 characters or has a line break.
    case invalidName(String)
    /// The descriptor does not parse; the parser's message.
    case invalidDescriptor(String)
    /// The descriptor is not `wsh`/`sh(wsh)`/`sh` around `multi` or `sortedmulti`.
    case notMultisig
    /// The descriptor holds private keys, which a registration never needs.
    case privateKeysInDescriptor
    /// A cosigner is not an extended key with a `[fingerprint/path]` origin.
    case keyWithoutOrigin
    /// A line of the Coldcard/Sparrow text format is not understood: its number and why.
    case invalidTextFormat(line: Int, reason: String)
    /// This vault's key is not among the cosigners: the vault's master fingerprint.
    case notACosigner(fingerprint: String)
    /// A cosigner claims this vault's fingerprint but its key is not the one the vault derives at that path.
    case cosignerKeyMismatch(path: String)
    /// The cosigner keys are for another network than the vault's.
    case networkMismatch(vault: String)
    /// The same cosigner key appears twice (its origin).
    case duplicateKey(String)
    /// A taproot multisig's internal key is neither unspendable nor a cosigner: its holder could spend alone.
    case foreignInternalKey(String)
    /// A `--cosigner` fingerprint that is not a key origin of the descriptor (or is named twice).
    case unknownCosigner(String)
    /// A cosigner name that is empty, too long, or holds terminal control or format characters.
    case invalidCosignerName(String)
}

extension MultisigError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidName(let name): "invalid wallet name '\(name)' (1 to 64 characters, one line)"
        case .invalidDescriptor(let message): "invalid multisig descriptor: \(message)"
        case .notMultisig:
            "not a multisig descriptor: expected wsh(sortedmulti(…)), sh(wsh(…)), sh(multi(…)), "
                + "tr(KEY,multi_a(…)) or a wsh(MINISCRIPT) policy"
        case .privateKeysInDescriptor: "the descriptor holds private keys; register the public descriptor"
        case .keyWithoutOrigin: "every cosigner must be an extended key with a [fingerprint/path] origin"
        case .invalidTextFormat(let line, let reason): "multisig text, line \(line): \(reason)"
        case .notACosigner(let fingerprint):
            "this vault's key (master fingerprint \(fingerprint)) is not one of the cosigners"
        case .cosignerKeyMismatch(let path):
            "a cosigner claims this vault's fingerprint at \(path), but its xpub is not the one this seed derives"
        case .networkMismatch(let vault): "the cosigner keys are not for this vault's network (\(vault))"
        case .duplicateKey(let origin): "the cosigner key \(origin) appears more than once: refused"
        case .foreignInternalKey(let key):
            "the taproot internal key \(key) is neither BIP341's unspendable H point nor one of the cosigners: its "
                + "holder could spend the wallet alone on the key path; refused"
        case .unknownCosigner(let fingerprint):
            "no cosigner key of the descriptor has the origin fingerprint \(DisplayText.clean(fingerprint))"
        case .invalidCosignerName(let name):
            "invalid cosigner name '\(DisplayText.clean(name))' (1 to 32 characters, one line, no control characters)"
        }
    }
}
