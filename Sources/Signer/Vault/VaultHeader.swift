import Bitcoin
import BitcoinCrypto
import Ethereum

/// The clear part of a vault file: everything but the sealed payload.
///
/// All of it is bound to the ciphertext as
/// associated data (`associatedData()`), so changing any field makes the vault fail to open.
public struct VaultHeader: Sendable, Equatable {
    /// The value of the `format` field.
    public static let formatName = "airlock-vault"
    /// The newest format version this build writes and reads.
    ///
    /// Version 2 adds the audit journal's head. A header without
    /// one (a vault from an older build, until its next signature) is written as version 1.
    public static let currentVersion = 2
    /// The key-derivation function, as written in the file.
    public static let kdfName = "argon2id"
    /// The cipher, as written in the file.
    public static let cipherName = "xchacha20-poly1305"
    /// Length of the key check value in bytes.
    public static let keyCheckLength = 16

    /// The format version.
    public var version: Int
    /// The network the keys are for.
    public var network: Network
    /// The BIP32 fingerprint of the master key (of the seed with the BIP39 passphrase, if any).
    public var masterFingerprint: Fingerprint
    /// Argon2id memory and passes.
    public var kdf: Argon2Parameters
    /// The Argon2id salt.
    public var salt: [UInt8]
    /// SHA-256("airlock-vault key check" ‖ key)[0..<16]: tells a wrong password from a tampered file.
    public var keyCheck: [UInt8]
    /// Whether the sealed payload holds the BIP39 passphrase (else it is asked for on every unlock).
    public var passphraseStored: Bool
    /// Registered multisig wallets (public data, authenticated but not encrypted).
    public var multisigWallets: [MultisigWallet]
    /// ERC-20 tokens the user added (`token add`): public data, authenticated like every other field.
    public var ethereumTokens: [EthereumToken] = []
    /// ERC-7730 clear-signing descriptors the user imported (`clear-signing import`), each as its merged JSON text:
    /// public data, authenticated like every other field (the ClearSigning module reads them).
    public var clearSigningDescriptors: [String] = []
    /// The signing journal's head (entries and last hash), authenticated like every other field; nil in a vault
    /// written by an older build (version 1).
    public var auditHead: AuditHead? {
        didSet { version = auditHead == nil ? 1 : Self.currentVersion }
    }

    /// A header from its parts; the version follows `auditHead` (1 without one, else `version`, at least 2).
    public init(
        version: Int = VaultHeader.currentVersion, network: Network, masterFingerprint: Fingerprint,
        kdf: Argon2Parameters, salt: [UInt8], keyCheck: [UInt8], passphraseStored: Bool,
        multisigWallets: [MultisigWallet] = [], auditHead: AuditHead? = nil
    ) {
        self.version = auditHead == nil ? 1 : max(version, 2)
        self.network = network
        self.masterFingerprint = masterFingerprint
        self.kdf = kdf
        self.salt = salt
        self.keyCheck = keyCheck
        self.passphraseStored = passphraseStored
        self.multisigWallets = multisigWallets
        self.auditHead = auditHead
    }

    /// The key check value of a derived key.
    static func keyCheck(for key: SecretBytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(Array("airlock-vault key check".utf8))
        hasher.update(key)
        return Array(hasher.finalize().prefix(keyCheckLength))
    }

    /// The canonical byte encoding of the header that the AEAD binds: every field in a fixed order, integers
    /// big-endian, strings and byte strings prefixed with their 32-bit length (docs/formats.md).
    public func associatedData() -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ value: UInt32) {
            out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        func u64(_ value: UInt64) {
            u32(UInt32(value >> 32))
            u32(UInt32(value & 0xFFFF_FFFF))
        }
        func bytes(_ value: [UInt8]) {
            u32(UInt32(value.count))
            out += value
        }
        func text(_ value: String) { bytes(Array(value.utf8)) }
        text(Self.formatName)
        u32(UInt32(version))
        text(network.rawValue)
        out += masterFingerprint.serialized()
        text(Self.kdfName)
        u64(UInt64(kdf.memoryBytes))
        u32(UInt32(kdf.iterations))
        bytes(salt)
        bytes(keyCheck)
        text(Self.cipherName)
        out.append(passphraseStored ? 1 : 0)
        u32(UInt32(multisigWallets.count))
        for wallet in multisigWallets {
            text(wallet.name)
            text(wallet.descriptorText)
        }
        if version >= 2 {
            let head = auditHead ?? .empty
            u64(UInt64(head.count))
            bytes(head.hash)
        }
        // Added tokens, only when there are some (a vault without keeps the encoding older builds wrote); the
        // fields before are self-delimiting, and the tag tells this tail from the cosigner names'.
        if !ethereumTokens.isEmpty {
            text("eth-tokens")
            u32(UInt32(ethereumTokens.count))
            for token in ethereumTokens {
                u64(token.chainID)
                bytes(token.address.bytes)
                text(token.symbol)
                out.append(token.decimals)
            }
        }
        // Cosigner names, only when a wallet has some: a vault without names keeps the encoding older builds
        // wrote. The fields before are self-delimiting, so this tail cannot be confused with them.
        if multisigWallets.contains(where: { !$0.cosignerNames.isEmpty }) {
            text("cosigner-names")
            for wallet in multisigWallets {
                u32(UInt32(wallet.cosignerNames.count))
                for cosigner in wallet.cosignerNames {
                    text(cosigner.fingerprint)
                    text(cosigner.name)
                }
            }
        }
        // Imported clear-signing descriptors, only when there are some (older vaults keep their encoding); tagged.
        if !clearSigningDescriptors.isEmpty {
            text("clear-signing")
            u32(UInt32(clearSigningDescriptors.count))
            for document in clearSigningDescriptors { text(document) }
        }
        return out
    }
}
