import Bitcoin
import BitcoinCrypto
import Codecs
import Ethereum
import Foundation
import SeedBackup

/// An opened vault: its authenticated header and the secrets, in `SecretBytes` only.
///
/// Keep it no longer than the
/// command that needs it.
public final class UnlockedVault: Sendable {
    /// The vault file it came from.
    public let vault: Vault
    /// The header, authenticated by the unlock.
    public let header: VaultHeader
    /// Where the seed comes from: BIP39 words or a SLIP-39 backup (secret memory).
    public let secret: VaultSecret
    /// The BIP39 mnemonic (entropy in secret memory), when the vault holds BIP39 words.
    public var mnemonic: Mnemonic? { secret.mnemonic }
    /// The BIP39 or SLIP-39 passphrase when the vault stores it.
    public let storedPassphrase: SecretBytes?
    /// Private keys imported with `key import`, sealed in the payload with the seed.
    public let importedKeys: [ImportedKey]
    /// The Argon2id key, kept to re-seal after a header change (multisig registration) without a second KDF run.
    let key: SecretBytes

    init(
        vault: Vault, header: VaultHeader, secret: VaultSecret, storedPassphrase: SecretBytes?,
        importedKeys: [ImportedKey] = [], key: SecretBytes
    ) {
        self.vault = vault
        self.header = header
        self.secret = secret
        self.storedPassphrase = storedPassphrase
        self.importedKeys = importedKeys
        self.key = key
    }

    /// The imported Ethereum key with `address`, if one was imported.
    public func importedEthereumKey(address: EthereumAddress) -> ImportedKey? {
        importedKeys.first { $0.chain == .ethereum && $0.ethereumAddress == address }
    }

    /// Seals `imported` into the vault with the keys already there (re-sealed atomically under the same key, fresh
    /// nonce; the header and the journal's head are unchanged).
    ///
    /// - Returns: the vault's keys after the import.
    /// - Throws: `VaultError.duplicateKey` when the same key is already imported for that chain, `.tooManyKeys`,
    ///   `.io`.
    @discardableResult
    public func importKey(_ imported: ImportedKey) throws(VaultError) -> [ImportedKey] {
        let address = imported.address(network: network)
        if importedKeys.contains(where: { $0.chain == imported.chain && $0.address(network: network) == address }) {
            throw .duplicateKey(address: address)
        }
        guard importedKeys.count < VaultPayload.maximumImportedKeys else {
            throw .tooManyKeys(maximum: VaultPayload.maximumImportedKeys)
        }
        let keys = importedKeys + [imported]
        try vault.write(
            header: header,
            payload: VaultPayload.encode(secret, passphrase: storedPassphrase, importedKeys: keys),
            key: key, overwrite: true)
        return keys
    }

    /// The network of the vault.
    public var network: Network { header.network }

    /// Whether `masterKey(passphrase:)` needs a passphrase from the user: one was used and is not stored.
    public var needsPassphrase: Bool {
        guard !header.passphraseStored else { return false }
        // Without a stored passphrase, the empty one is right exactly when it gives the header's fingerprint.
        return (try? masterKey(passphrase: nil)) == nil
    }

    /// The BIP32 seed (64 bytes from BIP39 words; the master secret of a SLIP-39 backup), checked against the
    /// header's master fingerprint.
    ///
    /// - Parameter passphrase: the BIP39 passphrase when the vault does not store it (nil: the stored one, else
    ///   none).
    /// - Returns: the seed, in secret memory.
    /// - Throws: `VaultError.wrongPassphrase` when the result is not the vault's master key.
    public func seed(passphrase: SecretBytes? = nil) throws(VaultError) -> SecretBytes {
        let chosen = passphrase ?? storedPassphrase
        let seed = secret.seed(passphrase: chosen)
        let master: ExtendedPrivateKey
        do { master = try ExtendedPrivateKey(seed: seed, network: header.network) } catch {
            throw .corrupt(reason: "the seed gives no valid master key")
        }
        guard master.fingerprint == header.masterFingerprint else {
            throw .wrongPassphrase(expected: header.masterFingerprint, actual: master.fingerprint)
        }
        return seed
    }

    /// The BIP32 master key (version bytes of the vault's network), checked against the header's fingerprint.
    ///
    /// - Throws: `VaultError.wrongPassphrase`.
    public func masterKey(passphrase: SecretBytes? = nil) throws(VaultError) -> ExtendedPrivateKey {
        let seed = try seed(passphrase: passphrase)
        do { return try ExtendedPrivateKey(seed: seed, network: header.network) } catch {
            throw .corrupt(reason: "the seed gives no valid master key")
        }
    }

    /// Re-seals the same secrets under `newPassword` (fresh salt and nonce, optionally new KDF parameters) and replaces
    /// the file atomically: after a crash the vault opens with the old or the new password.
    ///
    /// - Throws: `VaultError.invalidKDFParameters`, `.keyDerivationFailed`, `.io`.
    public func changePassword(to newPassword: SecretBytes, kdf: Argon2Parameters? = nil) throws(VaultError) {
        let parameters = kdf ?? header.kdf
        try Vault.checkParameters(parameters)
        var next = header
        next.kdf = parameters
        next.salt = SecureRandom.bytes(PasswordSeal.saltLength)
        let newKey = try Vault.deriveKey(password: newPassword, salt: next.salt, kdf: parameters)
        next.keyCheck = VaultHeader.keyCheck(for: newKey)
        try vault.write(header: next, payload: payload(), key: newKey, overwrite: true)
    }

    /// Adds a multisig wallet after checking that this vault's key is one of its cosigners.
    ///
    /// - Parameters:
    ///   - wallet: the multisig wallet.
    ///   - passphrase: as for `masterKey(passphrase:)`.
    /// - Returns: the header as written.
    /// - Throws: `MultisigError` (wrapped as the error thrown) or `VaultError`.
    @discardableResult
    public func register(_ wallet: MultisigWallet, passphrase: SecretBytes? = nil) throws -> VaultHeader {
        if header.multisigWallets.contains(where: {
            $0.name == wallet.name || $0.descriptorText == wallet.descriptorText
        }) {
            throw VaultError.duplicateWallet(name: wallet.name)
        }
        try MultisigVerifier.check(wallet, master: masterKey(passphrase: passphrase), network: header.network)
        var next = header
        next.multisigWallets.append(wallet)
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return next
    }

    /// The ERC-20 tokens the user added (`token add`), shown in token units by the review.
    public var tokens: [EthereumToken] { header.ethereumTokens }

    /// Adds a token (its chain and address not yet known to this vault), re-sealing the vault.
    ///
    /// - Returns: the header as written.
    /// - Throws: `VaultError.duplicateToken` when the vault already has a token at that address on that chain.
    @discardableResult
    public func addToken(_ token: EthereumToken) throws(VaultError) -> VaultHeader {
        guard !header.ethereumTokens.contains(where: { $0.chainID == token.chainID && $0.address == token.address })
        else { throw .duplicateToken(token.address.checksummed, chainID: token.chainID) }
        var next = header
        next.ethereumTokens.append(token)
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return next
    }

    /// Removes the token at `address` on `chainID` (every chain when nil), re-sealing the vault.
    ///
    /// - Returns: the tokens removed.
    /// - Throws: `VaultError.unknownToken` when there is none.
    @discardableResult
    public func removeToken(address: EthereumAddress, chainID: UInt64?) throws(VaultError) -> [EthereumToken] {
        let matches = { (token: EthereumToken) in
            token.address == address && (chainID == nil || token.chainID == chainID)
        }
        let removed = header.ethereumTokens.filter(matches)
        guard !removed.isEmpty else { throw .unknownToken(address.checksummed) }
        var next = header
        next.ethereumTokens.removeAll(where: matches)
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return removed
    }

    /// The ERC-7730 descriptors the user imported (`clear-signing import`), as their merged JSON texts.
    public var clearSigningDescriptors: [String] { header.clearSigningDescriptors }

    /// Replaces the stored clear-signing descriptors with `documents`, re-sealing the vault.
    ///
    /// - Returns: the header as written.
    @discardableResult
    public func setClearSigningDescriptors(_ documents: [String]) throws(VaultError) -> VaultHeader {
        var next = header
        next.clearSigningDescriptors = documents
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return next
    }

    /// The key of the signing journal, derived from the seed's entropy (`AuditKey`).
    public var auditKey: AuditKey { AuditKey(entropy: secret.journalEntropy) }

    /// The journal beside this vault.
    public var auditLog: AuditLog { AuditLog(vaultPath: vault.path) }

    /// Records a signature in the journal and its head in the vault.
    ///
    /// Appends a keyed entry to the journal (after checking it against the head this vault records), then re-seals
    /// the vault with the new head, atomically. A crash between the two leaves an authentic
    /// entry after the recorded head, which `verifyAudit` reports and the next signature anchors.
    ///
    /// - Returns: the entry written.
    /// - Throws: `AuditError` when the journal is damaged (nothing is written then) or cannot be written,
    ///   `VaultError.io` when the vault cannot be rewritten.
    @discardableResult
    public func recordSignature(unsignedPSBT: [UInt8], summary: AuditSummary, time: Date = Date()) throws -> AuditEntry
    {
        let entry = try auditLog.append(
            unsignedPSBT: unsignedPSBT, summary: summary, key: auditKey, anchor: header.auditHead, time: time)
        var next = header
        next.auditHead = AuditHead(count: entry.sequence, hash: entry.hash)
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return entry
    }

    /// Records an Ethereum signature in the journal (an entry with `"chain": "eth"`) and its head in the vault, as
    /// `recordSignature(unsignedPSBT:summary:time:)` does for a PSBT.
    ///
    /// - Parameters:
    ///   - signData: the request's sign-data as read (only its SHA-256 is stored).
    ///   - review: what the user approved.
    ///   - signature: the signature given; a transaction's hash is that of the signed transaction.
    ///   - allowFlags: the overrides in effect.
    ///   - time: the time recorded.
    /// - Returns: the entry written.
    /// - Throws: as `recordSignature(unsignedPSBT:summary:time:)`.
    @discardableResult
    public func recordEthereumSignature(
        signData: [UInt8], review: EthereumReview, signature: EthereumSignature, allowFlags: [String],
        time: Date = Date()
    ) throws -> AuditEntry {
        let identifier: [UInt8]
        switch review.content {
        case .transaction(let tx, _):
            identifier = Keccak256.hash(try tx.signedSerialized(signature: signature.signature))
        case .typedData, .personalMessage: identifier = review.signingHash
        }
        let entry = try auditLog.append(
            signData: signData, record: EthereumAuditRecord(review: review),
            summary: AuditSummary(
                txid: "0x" + Hex.encode(identifier), destinations: [], allowFlags: allowFlags),
            key: auditKey, anchor: header.auditHead, time: time)
        var next = header
        next.auditHead = AuditHead(count: entry.sequence, hash: entry.hash)
        try vault.write(header: next, payload: payload(), key: key, overwrite: true)
        return entry
    }

    /// Verifies the journal with this vault's key and the head its header records.
    ///
    /// - Throws: `AuditError.brokenChain`, `.truncated`, `.malformedLine`, `.io`.
    public func verifyAudit() throws(AuditError) -> AuditVerification {
        try auditLog.verify(key: auditKey, anchor: header.auditHead)
    }

    /// The plaintext payload again, for a re-seal.
    private func payload() -> SecretBytes {
        VaultPayload.encode(secret, passphrase: storedPassphrase, importedKeys: importedKeys)
    }
}
