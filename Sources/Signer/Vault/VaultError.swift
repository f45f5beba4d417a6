import Bitcoin

/// Errors from reading, unlocking or writing the vault file (docs/architecture.md section 3, docs/formats.md).
public enum VaultError: Error, Equatable, Sendable {
    /// No vault at this path.
    case notFound(path: String)
    /// A vault already exists at this path and overwriting was not asked for (`--force`).
    case alreadyExists(path: String)
    /// The file is not a vault this version can read: unparseable JSON, a missing or malformed field; `reason`
    /// names it.
    case corrupt(reason: String)
    /// The format version is newer than this build understands.
    case unsupportedVersion(Int)
    /// The password does not derive the key whose check value the header holds.
    case wrongPassword
    /// The password is right (the key check matches) but the sealed payload or the header it is bound to fails
    /// authentication: the file was changed.
    case tampered
    /// The BIP39 passphrase gives another master key than the one the vault was made for.
    case wrongPassphrase(expected: Fingerprint, actual: Fingerprint)
    /// The vault does not store its BIP39 passphrase, and none was given.
    case passphraseRequired
    /// Argon2id memory below Airlock's floor of 64 MiB or above 4 GiB, or passes outside 1...64.
    case invalidKDFParameters(memoryMiB: Int, passes: Int)
    /// Argon2id could not allocate its memory.
    case keyDerivationFailed(memoryMiB: Int)
    /// A file operation failed: what was done, on which path, and errno's text.
    case io(operation: String, path: String, reason: String)
    /// A multisig wallet of that name (or with that descriptor) is already registered.
    case duplicateWallet(name: String)
    /// That key is already imported (`key import`).
    case duplicateKey(address: String)
    /// The vault holds the most imported keys it takes.
    case tooManyKeys(maximum: Int)
    /// A token at that address on that chain is already added (`token add`).
    case duplicateToken(String, chainID: UInt64)
    /// No added token at that address (`token remove`).
    case unknownToken(String)
}

extension VaultError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notFound(let path): "no vault at \(path) (create one with 'airlock-signer init' or 'restore')"
        case .alreadyExists(let path): "a vault already exists at \(path); use --force to replace it"
        case .corrupt(let reason): "the vault file is corrupt or not a vault: \(reason)"
        case .unsupportedVersion(let version): "vault format version \(version) is newer than this airlock-signer"
        case .wrongPassword: "wrong password for this vault"
        case .tampered:
            "the vault file was tampered with: the password is right but the sealed data or its header fails "
                + "authentication"
        case .wrongPassphrase(let expected, let actual):
            "the BIP39 passphrase gives master fingerprint \(actual), but this vault is for \(expected)"
        case .passphraseRequired: "this vault does not store its BIP39 passphrase; it must be entered"
        case .invalidKDFParameters(let memory, let passes):
            "invalid Argon2id parameters: \(memory) MiB, \(passes) passes (memory 64...4096 MiB, passes 1...64)"
        case .keyDerivationFailed(let memory): "Argon2id could not allocate \(memory) MiB of memory"
        case .io(let operation, let path, let reason): "cannot \(operation) \(path): \(reason)"
        case .duplicateWallet(let name): "a multisig wallet named or equal to '\(name)' is already registered"
        case .duplicateKey(let address): "the key of \(address) is already imported in this vault"
        case .tooManyKeys(let maximum): "this vault already holds \(maximum) imported keys, the most it takes"
        case .duplicateToken(let address, let chainID):
            "a token at \(address) on chain \(chainID) is already added; remove it first to change it"
        case .unknownToken(let address): "no added token at \(address) (built-in tokens cannot be removed)"
        }
    }
}
