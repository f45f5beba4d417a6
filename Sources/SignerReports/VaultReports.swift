import Bitcoin
import Codecs
import Ethereum
import Signer

// The `--json` objects of the vault commands (`info`, `passwd`, `restore`, `init`, `backup`, `address`, `key`,
// `token`), built here beside the vault so another front end prints the same; golden files in Tests/Golden/json pin
// their shapes (docs/architecture.md rule R9).

/// `info --json`: the clear vault header, no secrets.
public struct InfoJSON: Encodable, Sendable {
    /// The Argon2id parameters.
    public struct KDF: Encodable, Sendable {
        public let algorithm: String
        public let memoryMib: Int
        public let passes: Int

        public init(algorithm: String, memoryMib: Int, passes: Int) {
            self.algorithm = algorithm
            self.memoryMib = memoryMib
            self.passes = passes
        }
    }
    public let vault: String
    public let formatVersion: Int
    public let network: String
    public let masterFingerprint: String
    public let kdf: KDF
    public let passphraseStored: Bool
    public let multisig: [MultisigWalletReport]
    public let auditEntries: Int
    /// The keys imported with `key import` (chain, address, label; no secret).
    public let importedKeys: [KeyJSON]

    public init(
        vault: String, formatVersion: Int, network: String, masterFingerprint: String, kdf: KDF,
        passphraseStored: Bool, multisig: [MultisigWalletReport], auditEntries: Int, importedKeys: [KeyJSON]
    ) {
        self.vault = vault
        self.formatVersion = formatVersion
        self.network = network
        self.masterFingerprint = masterFingerprint
        self.kdf = kdf
        self.passphraseStored = passphraseStored
        self.multisig = multisig
        self.auditEntries = auditEntries
        self.importedKeys = importedKeys
    }
}

/// `passwd --json`.
public struct PasswdJSON: Encodable, Sendable {
    public let vault: String
    public let passwordChanged: Bool

    public init(vault: String, passwordChanged: Bool) {
        self.vault = vault
        self.passwordChanged = passwordChanged
    }
}

/// `restore --json`.
public struct RestoreJSON: Encodable, Sendable {
    public let vault: String
    public let network: String
    public let masterFingerprint: String
    public let words: Int

    public init(vault: String, network: String, masterFingerprint: String, words: Int) {
        self.vault = vault
        self.network = network
        self.masterFingerprint = masterFingerprint
        self.words = words
    }
}

/// `init --json` and `backup show --json`: the words (the only outputs that carry a secret, by request).
public struct MnemonicJSON: Encodable, Sendable {
    public let mnemonic: String
    /// The word count (`init`).
    public let words: Int?
    /// The master key fingerprint (`backup show`).
    public let masterFingerprint: String?

    public init(mnemonic: String, words: Int?, masterFingerprint: String?) {
        self.mnemonic = mnemonic
        self.words = words
        self.masterFingerprint = masterFingerprint
    }
}

/// `backup verify --json`.
public struct BackupVerifyJSON: Encodable, Sendable {
    public let backupCheck: String

    public init(backupCheck: String) { self.backupCheck = backupCheck }
}

/// `address --json`.
public struct AddressJSON: Encodable, Sendable {
    public let address: String
    public let origin: String
    public let script: String
    public let account: Int
    public let change: Bool
    public let index: Int
    public let network: String

    public init(
        address: String, origin: String, script: String, account: Int, change: Bool, index: Int, network: String
    ) {
        self.address = address
        self.origin = origin
        self.script = script
        self.account = account
        self.change = change
        self.index = index
        self.network = network
    }
}

/// `key export --json`, `key import --json` and one entry of `key list --json`.
public struct KeyJSON: Encodable, Sendable {
    public let chain: String
    public let address: String
    /// The seed's derivation path, or nil for an imported key.
    public let path: String?
    public let label: String?
    /// `wif`, `hex` or `keystore` (export only).
    public let format: String?
    /// The WIF or hex (export with --show-secret only).
    public let secret: String?
    /// The keystore JSON when it was not written to a file.
    public let keystore: String?
    public let written: [String]?

    public init(
        chain: String, address: String, path: String?, label: String?, format: String?, secret: String?,
        keystore: String?, written: [String]?
    ) {
        self.chain = chain
        self.address = address
        self.path = path
        self.label = label
        self.format = format
        self.secret = secret
        self.keystore = keystore
        self.written = written
    }
}

/// `key list --json`.
public struct KeyListJSON: Encodable, Sendable {
    public let keys: [KeyJSON]

    public init(keys: [KeyJSON]) { self.keys = keys }
}

/// One token in `token list --json` (and `add`/`remove`).
public struct TokenJSON: Encodable, Sendable {
    public let chainID: UInt64
    public let address: String
    public let symbol: String
    public let decimals: UInt8
    public let builtIn: Bool

    public init(_ token: EthereumToken, builtIn: Bool) {
        chainID = token.chainID
        address = token.address.checksummed
        symbol = token.symbol
        decimals = token.decimals
        self.builtIn = builtIn
    }

    enum CodingKeys: String, CodingKey {
        case address, symbol, decimals
        case chainID = "chain_id"
        case builtIn = "built_in"
    }
}

/// `init --slip39 --json` and `backup slip39 --json`: the shares (secret; printed by request only).
public struct SLIP39SharesJSON: Encodable, Sendable {
    /// One group of shares.
    public struct Group: Encodable, Sendable {
        public let memberThreshold: Int
        public let shares: [String]

        public init(memberThreshold: Int, shares: [String]) {
            self.memberThreshold = memberThreshold
            self.shares = shares
        }
    }
    public let groupThreshold: Int
    public let groups: [Group]
    public let identifier: Int
    public let iterationExponent: Int
    public let extendable: Bool
    public let masterFingerprint: String

    public init(
        groupThreshold: Int, groups: [Group], identifier: Int, iterationExponent: Int, extendable: Bool,
        masterFingerprint: String
    ) {
        self.groupThreshold = groupThreshold
        self.groups = groups
        self.identifier = identifier
        self.iterationExponent = iterationExponent
        self.extendable = extendable
        self.masterFingerprint = masterFingerprint
    }
}

/// `restore --slip39 --json`.
public struct RestoreSLIP39JSON: Encodable, Sendable {
    public let vault: String
    public let network: String
    public let masterFingerprint: String
    public let sharesUsed: Int
    public let secretBytes: Int

    public init(vault: String, network: String, masterFingerprint: String, sharesUsed: Int, secretBytes: Int) {
        self.vault = vault
        self.network = network
        self.masterFingerprint = masterFingerprint
        self.sharesUsed = sharesUsed
        self.secretBytes = secretBytes
    }
}
