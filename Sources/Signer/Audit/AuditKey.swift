import BitcoinCrypto

/// The key that authenticates the signing journal's entries.
///
/// HKDF-Extract with HMAC-SHA-512: `HMAC-SHA-512(key: "airlock audit journal v2", message: BIP39 entropy)`, kept in
/// `SecretBytes`. It comes from the seed, not from the password, so it survives `passwd`; whoever can rewrite the
/// journal without the vault's seed cannot forge an entry. Entries are authenticated with the first 32 bytes of
/// `HMAC-SHA-512(key, entry encoding)` (docs/formats.md).
public struct AuditKey: Sendable {
    /// The derivation's label (the HKDF salt).
    static let label = "airlock audit journal v2"
    let secret: SecretBytes

    /// The key of the seed with `entropy`.
    init(entropy: SecretBytes) {
        var mac = HMACSHA512(key: Array(Self.label.utf8))
        mac.update(entropy)
        secret = mac.finalizeSecret()
    }

    /// The 32-byte tag of `message`.
    func tag(_ message: [UInt8]) -> [UInt8] {
        var mac = HMACSHA512(key: secret)
        mac.update(message)
        return Array(mac.finalize().prefix(32))
    }
}

/// The journal's head as the vault header records it: how many entries, and the last one's hash.
public struct AuditHead: Sendable, Equatable {
    /// The number of entries.
    public let count: Int
    /// The hash of the last entry (`AuditEntry.genesisHash` when there is none).
    public let hash: [UInt8]

    /// A head from its parts.
    public init(count: Int, hash: [UInt8]) {
        self.count = count
        self.hash = hash
    }

    /// The head of an empty journal.
    public static let empty = AuditHead(count: 0, hash: AuditEntry.genesisHash)
}

/// What `AuditLog.verify(key:anchor:)` found in an intact journal.
public struct AuditVerification: Sendable, Equatable {
    /// All entries.
    public let entries: Int
    /// Entries authenticated with the journal key (format v2).
    public let keyed: Int
    /// Entries of the older unkeyed format (SHA-256 chain), written before the journal was keyed.
    public let legacy: Int
    /// Whether the vault header records the journal's head (false for a vault written by an older build: then a
    /// cut tail cannot be detected until the next signature anchors it).
    public let anchored: Bool
    /// Keyed entries after the head the vault records (a signature whose vault update was interrupted).
    public let beyondAnchor: Int
}
