import Bitcoin
import CLISupport
import Signer

// The `--json` output types of the vault commands (docs/architecture.md rule R9); goldens in Tests/Golden/json pin their shapes.

/// `info --json`: the clear vault header, no secrets.
struct InfoJSON: Encodable, Sendable {
    /// The Argon2id parameters.
    struct KDF: Encodable, Sendable {
        let algorithm: String
        let memoryMib: Int
        let passes: Int
    }
    let vault: String
    let formatVersion: Int
    let network: String
    let masterFingerprint: String
    let kdf: KDF
    let passphraseStored: Bool
    let multisig: [MultisigJSON]
    let auditEntries: Int
    /// The keys imported with `key import` (chain, address, label; no secret).
    let importedKeys: [KeyJSON]
}

/// One registered multisig wallet in `--json` (the report is built in `Signer`).
typealias MultisigJSON = MultisigWalletReport

/// `passwd --json`.
struct PasswdJSON: Encodable, Sendable {
    let vault: String
    let passwordChanged: Bool
}

/// `restore --json`.
struct RestoreJSON: Encodable, Sendable {
    let vault: String
    let network: String
    let masterFingerprint: String
    let words: Int
}

/// `init --json` and `backup show --json`: the words (the only outputs that carry a secret, by request).
struct MnemonicJSON: Encodable, Sendable {
    let mnemonic: String
    /// The word count (`init`).
    let words: Int?
    /// The master key fingerprint (`backup show`).
    let masterFingerprint: String?
}

/// `backup verify --json`.
struct BackupVerifyJSON: Encodable, Sendable {
    let backupCheck: String
}

/// `address --json`.
struct AddressJSON: Encodable, Sendable {
    let address: String
    let origin: String
    let script: String
    let account: Int
    let change: Bool
    let index: Int
    let network: String
}
