import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup

/// The encrypted seed file (docs/architecture.md sections 3 and 4; the format is in docs/formats.md).
///
/// One JSON file: the header in the clear (network, master fingerprint, Argon2id parameters and salt, a key check
/// value, registered multisig wallets) and the secret payload (BIP39 entropy, and the BIP39 passphrase only when the
/// user asks to store it) sealed with XChaCha20-Poly1305 under the Argon2id key, with the canonical encoding of the
/// header as associated data. Every write is atomic (`AtomicFile`).
public struct Vault: Sendable {
    /// The vault's path.
    public let path: String

    /// A vault at `path` (nothing is read yet).
    public init(path: String) {
        self.path = path
    }

    /// `$AIRLOCK_VAULT`, else `~/.airlock/vault.airlock`.
    public static var defaultPath: String {
        if let path = ProcessInfo.processInfo.environment["AIRLOCK_VAULT"], !path.isEmpty { return path }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".airlock/vault.airlock")
    }

    /// Whether a file exists at the path.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Reads the clear header without a password (for `info` and `multisig list`).
    ///
    /// The header is authenticated
    /// only when the vault is unlocked.
    ///
    /// - Throws: `VaultError.notFound`, `.corrupt`, `.unsupportedVersion`, `.io`.
    public func readHeader() throws(VaultError) -> VaultHeader {
        try VaultFile(serialized: AtomicFile.read(path)).header
    }

    /// Creates a vault for `mnemonic` (BIP39 words).
    @discardableResult
    public func create(
        mnemonic: Mnemonic, passphrase: SecretBytes?, storePassphrase: Bool, network: Network,
        password: SecretBytes, kdf: Argon2Parameters = .default, overwrite: Bool = false
    ) throws(VaultError) -> VaultHeader {
        try create(
            secret: .bip39(mnemonic), passphrase: passphrase, storePassphrase: storePassphrase, network: network,
            password: password, kdf: kdf, overwrite: overwrite)
    }

    /// Creates a vault for `secret` (BIP39 words or a SLIP-39 backup).
    ///
    /// - Parameters:
    ///   - secret: where the seed comes from.
    ///   - passphrase: the BIP39 or SLIP-39 passphrase (nil or empty for none); it decides the master fingerprint.
    ///   - storePassphrase: seal the passphrase in the vault; otherwise it is asked for on every unlock.
    ///   - network: the network the vault signs for.
    ///   - password: the vault password.
    ///   - kdf: the Argon2id parameters.
    ///   - overwrite: replace an existing vault (`--force`).
    /// - Returns: the header written.
    /// - Throws: `VaultError.alreadyExists`, `.invalidKDFParameters`, `.keyDerivationFailed`, `.io`.
    @discardableResult
    public func create(
        secret: VaultSecret, passphrase: SecretBytes?, storePassphrase: Bool, network: Network,
        password: SecretBytes, kdf: Argon2Parameters = .default, overwrite: Bool = false
    ) throws(VaultError) -> VaultHeader {
        try Self.checkParameters(kdf)
        if !overwrite, exists { throw .alreadyExists(path: path) }
        if let passphrase, passphrase.count > VaultPayload.maximumPassphraseLength {
            throw .corrupt(reason: "the passphrase is longer than \(VaultPayload.maximumPassphraseLength) bytes")
        }
        let fingerprint = try Self.masterKey(secret: secret, passphrase: passphrase, network: network).fingerprint
        let salt = SecureRandom.bytes(PasswordSeal.saltLength)
        let key = try Self.deriveKey(password: password, salt: salt, kdf: kdf)
        let stored = storePassphrase && (passphrase?.count ?? 0) > 0
        let header = VaultHeader(
            network: network, masterFingerprint: fingerprint, kdf: kdf, salt: salt,
            keyCheck: VaultHeader.keyCheck(for: key), passphraseStored: stored, auditHead: .empty)
        // A journal of the vault this one replaces cannot verify under the new seed: keep it aside, never mixed in.
        let journal = AuditLog(vaultPath: path).path
        if overwrite, FileManager.default.fileExists(atPath: journal) {
            let aside = journal + ".replaced-\(Int(Date().timeIntervalSince1970))"
            guard rename(journal, aside) == 0 else {
                throw .io(operation: "move aside", path: journal, reason: String(cString: strerror(errno)))
            }
        }
        let payload = VaultPayload.encode(secret, passphrase: stored ? passphrase : nil)
        try write(header: header, payload: payload, key: key, overwrite: overwrite)
        return header
    }

    /// Unlocks the vault with `password`.
    ///
    /// A wrong password is told apart from a changed file by the key check value: when the key derived from the
    /// password does not match it, the password is wrong; when it matches but the AEAD fails, the file was changed.
    /// - Throws: `VaultError.wrongPassword`, `.tampered`, `.corrupt`, `.notFound`, `.io`, `.keyDerivationFailed`.
    public func unlock(password: SecretBytes) throws(VaultError) -> UnlockedVault {
        let file = try VaultFile(serialized: AtomicFile.read(path))
        let key = try Self.deriveKey(password: password, salt: file.header.salt, kdf: file.header.kdf)
        guard VaultHeader.keyCheck(for: key) == file.header.keyCheck else { throw .wrongPassword }
        let box = SealedBox(salt: file.header.salt, nonce: file.nonce, ciphertext: file.ciphertext)
        let payload: SecretBytes
        do { payload = try PasswordSeal.open(box, key: key, associatedData: file.header.associatedData()) } catch {
            throw .tampered
        }
        let (secret, passphrase, importedKeys) = try VaultPayload.decode(payload)
        if file.header.passphraseStored != (passphrase != nil) {
            throw .corrupt(reason: "passphrase_stored does not match the sealed payload")
        }
        let unlocked = UnlockedVault(
            vault: self, header: file.header, secret: secret, storedPassphrase: passphrase,
            importedKeys: importedKeys, key: key)
        if let passphrase {
            // The passphrase is known, so the fingerprint must match: a last consistency check.
            let actual = try Self.masterKey(secret: secret, passphrase: passphrase, network: file.header.network)
            guard actual.fingerprint == file.header.masterFingerprint else {
                throw .corrupt(reason: "the sealed seed does not give the header's master fingerprint")
            }
        }
        return unlocked
    }

    // MARK: Internals shared with UnlockedVault

    static func checkParameters(_ kdf: Argon2Parameters) throws(VaultError) {
        guard kdf.memoryBytes >= Argon2Parameters.minimumMemoryBytes, kdf.memoryBytes <= VaultFile.maximumMemoryBytes,
            (1...64).contains(kdf.iterations)
        else { throw .invalidKDFParameters(memoryMiB: kdf.memoryBytes >> 20, passes: kdf.iterations) }
    }

    static func deriveKey(password: SecretBytes, salt: [UInt8], kdf: Argon2Parameters) throws(VaultError)
        -> SecretBytes
    {
        do { return try PasswordSeal.deriveKey(password: password, salt: salt, parameters: kdf) } catch {
            if case .keyDerivationFailed = error { throw .keyDerivationFailed(memoryMiB: kdf.memoryBytes >> 20) }
            throw .invalidKDFParameters(memoryMiB: kdf.memoryBytes >> 20, passes: kdf.iterations)
        }
    }

    static func masterKey(secret: VaultSecret, passphrase: SecretBytes?, network: Network) throws(VaultError)
        -> ExtendedPrivateKey
    {
        let seed = secret.seed(passphrase: passphrase)
        do { return try ExtendedPrivateKey(seed: seed, network: network) } catch {
            throw .corrupt(reason: "the seed gives no valid master key (\(error))")
        }
    }

    /// Seals `payload` with `key` under `header` and writes the file atomically.
    func write(header: VaultHeader, payload: SecretBytes, key: SecretBytes, overwrite: Bool) throws(VaultError) {
        let box = PasswordSeal.seal(payload, key: key, salt: header.salt, associatedData: header.associatedData())
        let file = VaultFile(header: header, nonce: box.nonce, ciphertext: box.ciphertext)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try AtomicFile.ensureDirectory(directory)
        try AtomicFile.write(file.serialized(), to: path, overwrite: overwrite)
    }
}
