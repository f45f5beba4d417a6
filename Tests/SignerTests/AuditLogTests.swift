import Bitcoin
import Foundation
import Testing

@testable import Signer

/// The hash-chained signing journal.
@Suite("AuditLog")
struct AuditLogTests {
    static func makeLog(entries: Int) throws -> AuditLog {
        let dir = NSTemporaryDirectory() + "airlock-audit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = AuditLog(vaultPath: dir + "/vault.airlock")
        for n in 0..<entries {
            try log.append(
                unsignedPSBT: Array("psbt \(n)".utf8),
                summary: AuditSummary(
                    txid: String(repeating: String(n % 10), count: 64),
                    destinations: [.init(address: "bcrt1qexample\(n)", amount: try Amount(sats: UInt64(1000 + n)))],
                    change: try Amount(sats: 500), fee: try Amount(sats: 141)),
                time: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)))
        }
        return log
    }

    static func lines(_ log: AuditLog) throws -> [String] {
        try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func write(_ lines: [String], to log: AuditLog) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: log.path, atomically: true, encoding: .utf8)
    }

    static func brokenAt(_ line: Int) -> (any Error) -> Bool {
        { error in
            if case .brokenChain(let at, _) = error as? AuditError { return at == line }
            return false
        }
    }

    @Test("entries chain: each holds the previous hash, the first the zero hash, and verify counts them")
    func chain() throws {
        let log = try Self.makeLog(entries: 4)
        let entries = try log.entries()
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries[0].previousHash == AuditEntry.genesisHash)
        for n in 1..<4 { #expect(entries[n].previousHash == entries[n - 1].hash) }
        #expect(try log.verify() == 4)
        #expect(entries[2].summary.fee?.sats == 141)
        #expect(entries[0].time == "2023-11-14T22:13:20Z")
        let attributes = try FileManager.default.attributesOfItem(atPath: log.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("an edited amount is found at its line")
    func edited() throws {
        let log = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        #expect(lines[2].contains("\"amount\":1002"))
        lines[2] = lines[2].replacingOccurrences(of: "\"amount\":1002", with: "\"amount\":9002")
        try Self.write(lines, to: log)
        #expect(throws: AuditError.brokenChain(line: 3, reason: "the entry was edited")) { try log.verify() }
    }

    @Test("a removed entry breaks the chain at the line that follows it")
    func removed() throws {
        let log = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        lines.remove(at: 1)
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify() }, throws: Self.brokenAt(2))
    }

    @Test("reordered entries are found")
    func reordered() throws {
        let log = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        lines.swapAt(1, 2)
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify() }, throws: Self.brokenAt(2))
    }

    @Test("a rewritten entry with a recomputed own hash still breaks the next link")
    func rehashed() throws {
        let log = try Self.makeLog(entries: 3)
        let entries = try log.entries()
        let forged = AuditEntry(
            sequence: 2, time: entries[1].time, psbtDigest: entries[1].psbtDigest,
            summary: AuditSummary(txid: entries[1].summary.txid, destinations: []), previousHash: entries[0].hash)
        var lines = try Self.lines(log)
        lines[1] = forged.line()
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify() }, throws: Self.brokenAt(3))
    }

    @Test("append refuses to extend a broken journal")
    func appendRefusesBroken() throws {
        let log = try Self.makeLog(entries: 2)
        var lines = try Self.lines(log)
        lines[0] = lines[0].replacingOccurrences(of: "\"fee\":141", with: "\"fee\":1")
        try Self.write(lines, to: log)
        #expect(throws: AuditError.self) {
            try log.append(unsignedPSBT: [1], summary: AuditSummary(txid: "00", destinations: []))
        }
        #expect(try Self.lines(log).count == 2)
    }

    @Test("a garbage line is named")
    func garbage() throws {
        let log = try Self.makeLog(entries: 2)
        var lines = try Self.lines(log)
        lines.append("not json")
        try Self.write(lines, to: log)
        #expect(throws: AuditError.malformedLine(line: 3, reason: "not a JSON object")) { try log.verify() }
    }
}
