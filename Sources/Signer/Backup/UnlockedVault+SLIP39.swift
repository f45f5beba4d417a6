public import BitcoinCrypto
public import SeedBackup

/// Why `backup slip39` does not split the seed.
public enum SLIP39SplitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A new SLIP-39 passphrase was asked for a SLIP-39 vault, whose shares keep its own.
    case passphraseOnSLIP39Vault
    /// The layout or the secret does not split (why).
    case split(SLIP39Error)

    public var description: String {
        switch self {
        case .passphraseOnSLIP39Vault:
            "a SLIP-39 vault's shares keep its SLIP-39 passphrase; --slip39-passphrase is for a BIP39 vault"
        case .split(let error): SLIP39ShareSet.explain(error)
        }
    }
}

extension UnlockedVault {
    /// SLIP-39 shares of this vault's seed in `layout`: a SLIP-39 vault's own encrypted master secret split again
    /// (same backup: identifier and passphrase), or a BIP39 vault's 64-byte seed (from `seed`) encrypted under the
    /// passphrase `newPassphrase` gives (none when nil) with `iterationExponent`.
    ///
    /// - Throws: `SLIP39SplitError.passphraseOnSLIP39Vault` when a new passphrase is asked for a SLIP-39 vault,
    ///   `.split`, and what the closures throw.
    public func slip39Shares(
        _ layout: SLIP39Layout, iterationExponent: Int, seed: () throws -> SecretBytes,
        newPassphrase: (() throws -> SecretBytes)?
    ) throws -> [[SLIP39Share]] {
        let encrypted: SLIP39.EncryptedMasterSecret
        if let existing = secret.slip39 {
            if newPassphrase != nil { throw SLIP39SplitError.passphraseOnSLIP39Vault }
            encrypted = existing
        } else {
            encrypted = SLIP39.EncryptedMasterSecret(
                encrypting: try seed(), passphrase: try newPassphrase?() ?? SecretBytes(count: 0),
                iterationExponent: iterationExponent)
        }
        do throws(SLIP39Error) {
            return try SLIP39.split(encrypted, groupThreshold: layout.groupThreshold, groups: layout.groups)
        } catch { throw SLIP39SplitError.split(error) }
    }
}
