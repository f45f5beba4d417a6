import BitcoinCrypto
import Foundation

/// The append-only, hash-chained journal of everything signed: JSON lines next to the vault (`vault.airlock.audit`).
///
/// Each entry holds the hash of the one before, so an edited, removed, inserted or
/// reordered entry breaks the chain at its line. (Cutting entries off the end leaves a valid shorter chain; the
/// journal is evidence for the user, not a defence against someone who can rewrite the disk.)
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

    /// Appends an entry for a signed PSBT, after checking the chain so far.
    ///
    /// The line is written with one `write` on a descriptor opened `O_APPEND` under an exclusive `flock`, then
    /// fsynced.
    /// - Parameters:
    ///   - unsignedPSBT: the PSBT as read, before signing; only its SHA-256 is stored.
    ///   - summary: what the user approved.
    ///   - time: the time recorded in the entry.
    /// - Returns: the entry written.
    /// - Throws: `AuditError.brokenChain` or `.malformedLine` when the journal is already damaged (nothing is
    ///   written then), `.io`.
    @discardableResult
    public func append(unsignedPSBT: [UInt8], summary: AuditSummary, time: Date = Date()) throws(AuditError)
        -> AuditEntry
    {
        let created = !FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw io("open", path) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw io("lock", path) }
        let existing = try Self.parse(try readAll(fd: fd))
        try Self.verifyChain(existing)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let entry = AuditEntry(
            sequence: (existing.last?.sequence ?? 0) + 1, time: formatter.string(from: time),
            psbtDigest: SHA256.hash(unsignedPSBT), summary: summary,
            previousHash: existing.last?.hash ?? AuditEntry.genesisHash)
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

    /// Checks every line and the chain; returns the number of entries.
    ///
    /// - Throws: `AuditError.malformedLine` or `.brokenChain` naming the first bad line.
    @discardableResult
    public func verify() throws(AuditError) -> Int {
        let all = try entries()
        try Self.verifyChain(all)
        return all.count
    }

    static func verifyChain(_ entries: [AuditEntry]) throws(AuditError) {
        var previous = AuditEntry.genesisHash
        for (offset, entry) in entries.enumerated() {
            let line = offset + 1
            guard entry.sequence == line else {
                throw .brokenChain(
                    line: line, reason: "entry number \(entry.sequence) where \(line) belongs (removed or reordered)")
            }
            guard entry.previousHash == previous else {
                throw .brokenChain(line: line, reason: "its previous-entry hash does not match line \(line - 1)")
            }
            guard entry.hashIsValid else { throw .brokenChain(line: line, reason: "the entry was edited") }
            previous = entry.hash
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
