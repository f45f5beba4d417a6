import BitcoinCrypto
import Foundation

/// The append-only, keyed, hash-chained journal of everything signed: JSON lines next to the vault
/// (`vault.airlock.audit`).
///
/// Each entry holds the hash of the one before, and its own hash is an HMAC under a key derived from the seed
/// (`AuditKey`), so an edited, removed, inserted or reordered entry breaks the chain at its line and a chain
/// recomputed without the key (or with plain SHA-256) does not verify. The vault header records the journal's head
/// (entry count and last hash, authenticated with the sealed seed: `VaultHeader.auditHead`), so a cut tail or a
/// wholesale rewrite is detected too. Entries written by older builds (unkeyed, v1) still verify as a SHA-256 chain;
/// the first keyed entry chains onto them and so protects them from then on.
public struct AuditLog: Sendable {
    /// The journal's path.
    public let path: String

    /// The journal at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The journal beside a vault: the vault's path plus `.audit`.
    public init(vaultPath: String) {
        self.path = vaultPath + ".audit"
    }

    /// Appends a keyed entry for a signed PSBT, after checking the chain so far against `key` and `anchor`.
    ///
    /// The line is written with one `write` on a descriptor opened `O_APPEND` under an exclusive `flock`, then
    /// fsynced. The caller then records the new head in the vault header (`UnlockedVault.recordSignature`).
    /// - Parameters:
    ///   - unsignedPSBT: the PSBT as read, before signing; only its SHA-256 is stored.
    ///   - summary: what the user approved, with the overrides in effect and the inputs signed.
    ///   - key: the journal key.
    ///   - anchor: the head the vault header records (nil for a vault written before journals were anchored).
    ///   - time: the time recorded in the entry.
    /// - Returns: the entry written.
    /// - Throws: `AuditError.brokenChain`, `.truncated` or `.malformedLine` when the journal is already damaged
    ///   (nothing is written then), `.io`.
    @discardableResult
    func append(
        unsignedPSBT: [UInt8], summary: AuditSummary, key: AuditKey, anchor: AuditHead?, time: Date = Date()
    ) throws(AuditError) -> AuditEntry {
        try append(unsignedPSBT: unsignedPSBT, summary: summary, key: key, anchor: anchor, time: time, keyed: true)
    }

    /// Appends a keyed entry for an Ethereum signature (`"chain": "eth"`), after checking the chain so far.
    ///
    /// - Parameters:
    ///   - signData: the request's sign-data as read; only its SHA-256 is stored.
    ///   - record: what was signed.
    ///   - summary: the transaction hash (or the hash a message signature covers), the overrides in effect.
    ///   - key: the journal key.
    ///   - anchor: the head the vault header records.
    ///   - time: the time recorded in the entry.
    /// - Returns: the entry written.
    /// - Throws: as for a PSBT.
    @discardableResult
    func append(
        signData: [UInt8], record: EthereumAuditRecord, summary: AuditSummary, key: AuditKey, anchor: AuditHead?,
        time: Date = Date()
    ) throws(AuditError) -> AuditEntry {
        try append(
            unsignedPSBT: signData, summary: summary, key: key, anchor: anchor, time: time, keyed: true,
            ethereum: record)
    }

    /// Appends an entry; `keyed: false` writes the legacy unkeyed format (for migration tests only).
    func append(
        unsignedPSBT: [UInt8], summary: AuditSummary, key: AuditKey?, anchor: AuditHead?, time: Date, keyed: Bool,
        ethereum: EthereumAuditRecord? = nil
    ) throws(AuditError) -> AuditEntry {
        let created = !FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw io("open", path) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw io("lock", path) }
        let existing = try Self.parse(try readAll(fd: fd))
        try Self.verifyChain(existing, key: key, anchor: anchor)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let entry = AuditEntry(
            sequence: (existing.last?.sequence ?? 0) + 1, time: formatter.string(from: time),
            psbtDigest: SHA256.hash(unsignedPSBT), summary: summary,
            previousHash: existing.last?.hash ?? AuditEntry.genesisHash, key: keyed ? key : nil, ethereum: ethereum)
        let line = Array((entry.line() + "\n").utf8)
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw io("append to", path) }
        guard fsync(fd) == 0 else { throw io("fsync", path) }
        if created {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dirFD >= 0 {
                _ = fsync(dirFD)
                close(dirFD)
            }
        }
        return entry
    }

    /// The entries, parsed but not checked; an empty list when the journal does not exist yet.
    ///
    /// - Throws: `AuditError.malformedLine`, `.io`.
    public func entries() throws(AuditError) -> [AuditEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw io("open", path) }
        defer { close(fd) }
        return try Self.parse(try readAll(fd: fd))
    }

    /// Checks every line, the chain, each keyed entry's HMAC under `key`, and the head the vault records.
    ///
    /// - Parameters:
    ///   - key: the journal key (`UnlockedVault.auditKey`).
    ///   - anchor: the head from the authenticated vault header; nil for a vault written by an older build.
    /// - Returns: what was found.
    /// - Throws: `AuditError.malformedLine`, `.brokenChain` naming the first bad line, `.truncated` when entries
    ///   the vault recorded are missing.
    @discardableResult
    public func verify(key: AuditKey, anchor: AuditHead?) throws(AuditError) -> AuditVerification {
        let all = try entries()
        try Self.verifyChain(all, key: key, anchor: anchor)
        let keyed = all.filter(\.keyed).count
        return AuditVerification(
            entries: all.count, keyed: keyed, legacy: all.count - keyed, anchored: anchor != nil,
            beyondAnchor: anchor.map { all.count - $0.count } ?? 0)
    }

    /// The chain rules (docs/formats.md): numbered from 1, each entry naming the one before, each hash valid (keyed:
    /// the HMAC under `key`; legacy: SHA-256), no legacy entry after a keyed one, and, when the vault records a head,
    /// at least that many entries, the entry at the head carrying the head's hash, and only keyed entries after it.
    static func verifyChain(_ entries: [AuditEntry], key: AuditKey?, anchor: AuditHead?) throws(AuditError) {
        var previous = AuditEntry.genesisHash
        var seenKeyed = false
        for (offset, entry) in entries.enumerated() {
            let line = offset + 1
            guard entry.sequence == line else {
                throw .brokenChain(
                    line: line, reason: "entry number \(entry.sequence) where \(line) belongs (removed or reordered)")
            }
            guard entry.previousHash == previous else {
                throw .brokenChain(line: line, reason: "its previous-entry hash does not match line \(line - 1)")
            }
            if entry.keyed {
                seenKeyed = true
            } else if seenKeyed {
                throw .brokenChain(line: line, reason: "an unkeyed entry after keyed ones (the chain was rewritten)")
            } else if let anchor, line > anchor.count {
                throw .brokenChain(line: line, reason: "an unkeyed entry after the head the vault records")
            }
            guard entry.hashIsValid(key: key) else {
                throw .brokenChain(
                    line: line,
                    reason: entry.keyed
                        ? "the entry was edited, or written with another key" : "the entry was edited")
            }
            previous = entry.hash
        }
        guard let anchor else { return }
        guard entries.count >= anchor.count else { throw .truncated(expected: anchor.count, found: entries.count) }
        let head = anchor.count == 0 ? AuditEntry.genesisHash : entries[anchor.count - 1].hash
        guard head == anchor.hash else {
            throw .brokenChain(
                line: anchor.count, reason: "it is not the head the vault records (the journal was rewritten)")
        }
    }

    static func parse(_ bytes: [UInt8]) throws(AuditError) -> [AuditEntry] {
        guard !bytes.isEmpty else { return [] }
        guard bytes.last == UInt8(ascii: "\n") else {
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            throw .malformedLine(line: lines, reason: "the last line is incomplete (no newline)")
        }
        var out: [AuditEntry] = []
        let lines = bytes.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() {
            guard let text = String(validating: line, as: UTF8.self) else {
                throw .malformedLine(line: offset + 1, reason: "not UTF-8")
            }
            out.append(try AuditEntry(line: text, number: offset + 1))
        }
        return out
    }

    private func readAll(fd: Int32) throws(AuditError) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw io("read", path)
            }
            if n == 0 { return out }
            out += buffer[0..<n]
            offset += off_t(n)
        }
    }

    private func io(_ operation: String, _ path: String) -> AuditError {
        .io(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
