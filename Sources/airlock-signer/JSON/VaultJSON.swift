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

/// One registered multisig wallet (`multisig list`, `multisig register`, `info`).
struct MultisigJSON: Encodable, Sendable {
    let name: String
    let threshold: Int
    let keys: Int
    let script: String
    let descriptor: String
    /// A miniscript policy wallet's policy in words (absent for plain multisig; `threshold` is then 0).
    let policy: String?
    /// The cosigners' names given at registration (`--cosigner FP=NAME`); empty when none were given.
    let cosigners: [CosignerNameJSON]
    /// Whether the wallet's name held hidden characters (given as it is; escaped on the screen); absent when not.
    let hiddenCharacters: Bool?
    /// `multisig register`: what the review warned about (absent in lists).
    var warnings: [String]?
    /// `multisig register`: every way the wallet can be spent without this vault, in words (absent in lists).
    var pathsWithoutThisVault: [String]?

    struct CosignerNameJSON: Encodable, Sendable {
        let fingerprint: String
        let name: String
    }

    init(_ wallet: MultisigWallet) {
        cosigners = wallet.cosignerNames.map { CosignerNameJSON(fingerprint: $0.fingerprint, name: $0.name) }
        name = wallet.name
        threshold = wallet.threshold
        keys = wallet.keyCount
        script = wallet.scriptType
        descriptor = wallet.descriptorText
        policy = wallet.miniscriptPolicy
        hiddenCharacters = DisplayText.hasHiddenCharacters(wallet.name) ? true : nil
    }
}

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

/// One line of `audit --json`: the journal entry as stored (change, fee and note only when present).
struct AuditEntryJSON: Encodable, Sendable {
    /// A payee.
    struct Destination: Encodable, Sendable {
        let address: String
        let amount: UInt64
    }
    let seq: Int
    let time: String
    /// Absent for an Ethereum entry, which has `data_sha256`.
    let psbtSha256: String?
    let txid: String
    let destinations: [Destination]
    let prev: String
    let hash: String
    let change: UInt64?
    let fee: UInt64?
    let note: String?
    /// `"eth"` for an Ethereum entry; then the fields below (docs/formats.md).
    let chain: String?
    let kind: String?
    let dataSha256: String?
    let chainId: UInt64?
    let from: String?
    let to: String?
    let valueWei: String?
    let feeWei: String?
    let call: String?

    init(_ entry: AuditEntry) {
        seq = entry.sequence
        time = entry.time
        let ethereum = entry.ethereum
        psbtSha256 = ethereum == nil ? entry.psbtDigest.hexString : nil
        dataSha256 = ethereum == nil ? nil : entry.psbtDigest.hexString
        chain = ethereum == nil ? nil : "eth"
        kind = ethereum?.kind.rawValue
        chainId = ethereum?.chainID
        from = ethereum?.from
        to = ethereum?.to
        valueWei = ethereum?.valueWei
        feeWei = ethereum?.feeWei
        call = ethereum?.call
        txid = entry.summary.txid
        destinations = entry.summary.destinations.map { Destination(address: $0.address, amount: $0.amount.sats) }
        prev = entry.previousHash.hexString
        hash = entry.hash.hexString
        change = entry.summary.change?.sats
        fee = entry.summary.fee?.sats
        note = entry.summary.note
    }
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
