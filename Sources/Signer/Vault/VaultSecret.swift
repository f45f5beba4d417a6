import Bitcoin
import BitcoinCrypto
import SeedBackup

/// What a vault's seed comes from: BIP39 words, or a SLIP-39 backup's encrypted master secret.
///
/// - BIP39: the seed is PBKDF2 of the words and the BIP39 passphrase (64 bytes).
/// - SLIP-39: the seed is the master secret, the encrypted master secret decrypted with the SLIP-39 passphrase (16,
///   32 or, for shares made from a BIP39 vault, 64 bytes), used as the BIP32 seed as Trezor and Keystone do.
///
/// The passphrase of either kind is the one `UnlockedVault.seed(passphrase:)` takes (stored or asked for).
public enum VaultSecret: Sendable {
    /// BIP39 words.
    case bip39(Mnemonic)
    /// A SLIP-39 backup.
    case slip39(SLIP39.EncryptedMasterSecret)

    /// The BIP32 seed under `passphrase` (nil: none).
    public func seed(passphrase: SecretBytes?) -> SecretBytes {
        switch self {
        case .bip39(let mnemonic):
            return passphrase.map { mnemonic.seed(passphrase: $0) } ?? mnemonic.seed()
        case .slip39(let encrypted):
            return encrypted.masterSecret(passphrase: passphrase ?? SecretBytes(count: 0))
        }
    }

    /// The secret that keys the signing journal (the entropy, or the encrypted master secret).
    var journalEntropy: SecretBytes {
        switch self {
        case .bip39(let mnemonic): return mnemonic.entropy
        case .slip39(let encrypted): return encrypted.value
        }
    }

    /// The BIP39 mnemonic, when the vault holds one.
    public var mnemonic: Mnemonic? {
        if case .bip39(let mnemonic) = self { return mnemonic }
        return nil
    }

    /// The SLIP-39 encrypted master secret, when the vault holds one.
    public var slip39: SLIP39.EncryptedMasterSecret? {
        if case .slip39(let encrypted) = self { return encrypted }
        return nil
    }

    /// "bip39" or "slip39".
    public var kind: String { mnemonic != nil ? "bip39" : "slip39" }
}
