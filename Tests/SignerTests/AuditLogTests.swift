import Bitcoin
import BitcoinCrypto
import Foundation
import Testing

@testable import Signer

/// The keyed, hash-chained signing journal and its head in the vault header.
@Suite("AuditLog")
struct AuditLogTests {
    static let key = AuditKey(entropy: SecretBytes(copying: [UInt8](repeating: 0x7F, count: 16)))
    static let otherKey = AuditKey(entropy: SecretBytes(copying: [UInt8](repeating: 0x80, count: 16)))

    static func summary(_ n: Int) throws -> AuditSummary {
        AuditSummary(
            txid: String(repeating: String(n % 10), count: 64),
            destinations: [.init(address: "bcrt1qexample\(n)", amount: try Amount(sats: UInt64(1000 + n)))],
            change: try Amount(sats: 500), fee: try Amount(sats: 141), allowFlags: n == 1 ? ["--allow-network"] : [],
            signedInputs: [0, n])
    }

    static func time(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(n)) }

    /// A journal of `entries` keyed entries; returns it and its head.
    static func makeLog(entries: Int, legacy: Int = 0) throws -> (AuditLog, AuditHead) {
        let dir = NSTemporaryDirectory() + "airlock-audit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = AuditLog(vaultPath: dir + "/vault.airlock")
        var head: AuditHead? = legacy > 0 ? nil : .empty
        for n in 0..<(legacy + entries) {
            let keyed = n >= legacy
            let entry = try log.append(
                unsignedPSBT: Array("psbt \(n)".utf8), summary: summary(n), key: key, anchor: head, time: time(n),
                keyed: keyed)
            if keyed { head = AuditHead(count: entry.sequence, hash: entry.hash) }
        }
        return (log, head ?? .empty)
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

    /// The entries re-chained from the first with `key` (nil: the unkeyed SHA-256 format), as an attacker without
    /// the journal key would rewrite them.
    static func rechained(_ entries: [AuditEntry], key: AuditKey?) -> [String] {
        var previous = AuditEntry.genesisHash
        return entries.map { entry in
            let forged = AuditEntry(
                sequence: entry.sequence, time: entry.time, psbtDigest: entry.psbtDigest, summary: entry.summary,
                previousHash: previous, key: key, ethereum: entry.ethereum)
            previous = forged.hash
            return forged.line()
        }
    }

    @Test("keyed entries chain, carry v 2, the overrides and signed inputs, and verify against the head")
    func chain() throws {
        let (log, head) = try Self.makeLog(entries: 4)
        let entries = try log.entries()
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries.allSatisfy { $0.keyed })
        #expect(entries[0].previousHash == AuditEntry.genesisHash)
        for n in 1..<4 { #expect(entries[n].previousHash == entries[n - 1].hash) }
        #expect(entries[1].summary.allowFlags == ["--allow-network"])
        #expect(entries[2].summary.signedInputs == [0, 2])
        #expect(try Self.lines(log)[0].contains("\"v\":2"))
        let found = try log.verify(key: Self.key, anchor: head)
        #expect(found == AuditVerification(entries: 4, keyed: 4, legacy: 0, anchored: true, beyondAnchor: 0))
        #expect(head.count == 4 && head.hash == entries[3].hash)
        let attributes = try FileManager.default.attributesOfItem(atPath: log.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("the entry hash is an HMAC under the key: SHA-256 of the same bytes is not it, another key gives another")
    func keyedHash() throws {
        let (log, _) = try Self.makeLog(entries: 1)
        let entry = try log.entries()[0]
        let encoding = AuditEntry.encoding(
            sequence: 1, time: entry.time, psbtDigest: entry.psbtDigest, summary: entry.summary,
            previousHash: entry.previousHash, keyed: true)
        #expect(entry.hash == Self.key.tag(encoding))
        #expect(entry.hash != SHA256.hash(encoding))
        #expect(entry.hash != Self.otherKey.tag(encoding))
        #expect(entry.hashIsValid(key: Self.key))
        #expect(!entry.hashIsValid(key: Self.otherKey))
    }

    static let ethRecord = EthereumAuditRecord(
        kind: .transaction, chainID: 131_277_322_940_537, from: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
        to: "0x3535353535353535353535353535353535353535", valueWei: "1000000000000000000", feeWei: "630000000000000",
        call: "transfer 5 base units to 0xCdCdcDcDCDCdCdcDcdCDcdCdCdCdcdCdCdCDcdcD")

    /// Two Bitcoin entries, an Ethereum entry, a Bitcoin entry; returns the journal and its head.
    static func mixedLog() throws -> (AuditLog, AuditHead) {
        var (log, head) = try makeLog(entries: 2)
        let eth = try log.append(
            signData: Array("eth sign-data".utf8), record: ethRecord,
            summary: AuditSummary(
                txid: "0x" + String(repeating: "ab", count: 32), destinations: [],
                allowFlags: ["--allow-network"]),
            key: key, anchor: head, time: time(2))
        head = AuditHead(count: eth.sequence, hash: eth.hash)
        let last = try log.append(
            unsignedPSBT: Array("psbt 3".utf8), summary: summary(3), key: key, anchor: head, time: time(3))
        return (log, AuditHead(count: last.sequence, hash: last.hash))
    }

    @Test("an Ethereum entry chains between PSBT entries, round-trips its fields and verifies")
    func ethereumEntry() throws {
        let (log, head) = try Self.mixedLog()
        let entries = try log.entries()
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries[2].ethereum == Self.ethRecord)
        #expect(entries[2].keyed && entries[2].summary.allowFlags == ["--allow-network"])
        #expect(entries[2].psbtDigest == SHA256.hash(Array("eth sign-data".utf8)))
        #expect(entries.filter { $0.ethereum == nil }.count == 3)
        let lines = try Self.lines(log)
        #expect(lines[2].contains("\"chain\":\"eth\"") && lines[2].contains("\"chain_id\":131277322940537"))
        #expect(lines[2].contains("\"value_wei\":\"1000000000000000000\"") && !lines[2].contains("psbt_sha256"))
        // The PSBT entries keep their format: no Ethereum field.
        #expect(!lines[1].contains("chain") && !lines[3].contains("chain") && lines[3].contains("psbt_sha256"))
        #expect(try log.verify(key: Self.key, anchor: head).entries == 4)
        // Its encoding has its own label: not the bytes of a PSBT entry with the same summary.
        let entry = entries[2]
        let ethBytes = AuditEntry.encoding(
            sequence: 3, time: entry.time, psbtDigest: entry.psbtDigest, summary: entry.summary,
            previousHash: entry.previousHash, keyed: true, ethereum: entry.ethereum)
        let plainBytes = AuditEntry.encoding(
            sequence: 3, time: entry.time, psbtDigest: entry.psbtDigest, summary: entry.summary,
            previousHash: entry.previousHash, keyed: true)
        #expect(entry.hash == Self.key.tag(ethBytes) && ethBytes != plainBytes)
    }

    @Test(
        "an edited Ethereum field (value, recipient, fee, kind, chain id) is found at its line",
        arguments: [
            ("\"value_wei\":\"1000000000000000000\"", "\"value_wei\":\"9000000000000000000\""),
            (
                "\"to\":\"0x3535353535353535353535353535353535353535\"",
                "\"to\":\"0x3636363636363636363636363636363636363636\""
            ),
            ("\"fee_wei\":\"630000000000000\"", "\"fee_wei\":\"63000000000000\""),
            ("\"kind\":\"transaction\"", "\"kind\":\"personal-message\""),
            ("\"chain_id\":131277322940537", "\"chain_id\":1"),
        ])
    func ethereumEdited(from: String, to: String) throws {
        let (log, head) = try Self.mixedLog()
        var lines = try Self.lines(log)
        #expect(lines[2].contains(from))
        lines[2] = lines[2].replacingOccurrences(of: from, with: to)
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(3))
    }

    @Test("an Ethereum line without v 2, with an unknown kind or an unknown field is not an entry")
    func ethereumMalformed() throws {
        for (from, to) in [
            ("\"v\":2", "\"v\":1"), ("\"kind\":\"transaction\"", "\"kind\":\"bribe\""),
            ("\"chain\":\"eth\"", "\"chain\":\"eth\",\"extra\":1"), ("\"chain\":\"eth\"", "\"chain\":\"btc\""),
        ] {
            let (log, head) = try Self.mixedLog()
            var lines = try Self.lines(log)
            #expect(lines[2].contains(from))
            lines[2] = lines[2].replacingOccurrences(of: from, with: to)
            try Self.write(lines, to: log)
            #expect(
                performing: { try log.verify(key: Self.key, anchor: head) },
                throws: { error in
                    if case .malformedLine(let line, _) = error as? AuditError { return line == 3 }
                    return false
                })
        }
    }

    @Test("an edited amount is found at its line (exit 3)")
    func edited() throws {
        let (log, head) = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        #expect(lines[2].contains("\"amount\":1002"))
        lines[2] = lines[2].replacingOccurrences(of: "\"amount\":1002", with: "\"amount\":9002")
        try Self.write(lines, to: log)
        #expect(
            throws: AuditError.brokenChain(line: 3, reason: "the entry was edited, or written with another key")
        ) { try log.verify(key: Self.key, anchor: head) }
    }

    @Test("an edited override list or signed-input list is found")
    func editedOverrides() throws {
        let (log, head) = try Self.makeLog(entries: 3)
        var lines = try Self.lines(log)
        #expect(lines[1].contains("\"allow\":[\"--allow-network\"]"))
        lines[1] = lines[1].replacingOccurrences(of: "\"allow\":[\"--allow-network\"]", with: "\"allow\":[]")
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(2))
    }

    @Test("a cut tail is detected against the head; the same journal without a head cannot tell")
    func truncated() throws {
        let (log, head) = try Self.makeLog(entries: 4)
        let lines = try Self.lines(log)
        try Self.write(Array(lines.prefix(3)), to: log)
        #expect(throws: AuditError.truncated(expected: 4, found: 3)) { try log.verify(key: Self.key, anchor: head) }
        // The control: the chain itself is intact; only the head tells.
        #expect(try log.verify(key: Self.key, anchor: nil).entries == 3)
    }

    @Test("a chain recomputed with another key is refused at its first line")
    func rewrittenWithAnotherKey() throws {
        let (log, head) = try Self.makeLog(entries: 3)
        try Self.write(Self.rechained(try log.entries(), key: Self.otherKey), to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(1))
    }

    @Test("a chain recomputed as unkeyed SHA-256 is refused by the head the vault records")
    func rewrittenUnkeyed() throws {
        let (log, head) = try Self.makeLog(entries: 3)
        try Self.write(Self.rechained(try log.entries(), key: nil), to: log)
        // Each unkeyed entry is a valid SHA-256 link, but the last one is not the head the sealed header holds.
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(3))
        // The control: the same rewrite with the right key is byte for byte the journal, and verifies.
        let (intact, intactHead) = try Self.makeLog(entries: 3)
        let original = try Self.lines(intact)
        #expect(Self.rechained(try intact.entries(), key: Self.key) == original)
        #expect(try intact.verify(key: Self.key, anchor: intactHead).entries == 3)
    }

    @Test("a removed entry breaks the chain at the line that follows it")
    func removed() throws {
        let (log, head) = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        lines.remove(at: 1)
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(2))
    }

    @Test("reordered entries are found")
    func reordered() throws {
        let (log, head) = try Self.makeLog(entries: 4)
        var lines = try Self.lines(log)
        lines.swapAt(1, 2)
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(2))
    }

    @Test("authentic entries after the recorded head (an interrupted signature) verify and are counted")
    func beyondAnchor() throws {
        let (log, head) = try Self.makeLog(entries: 3)
        let older = AuditHead(count: 2, hash: try log.entries()[1].hash)
        let found = try log.verify(key: Self.key, anchor: older)
        #expect(found.beyondAnchor == 1 && found.entries == 3)
        #expect(head.count == 3)
    }

    @Test("append refuses to extend a broken journal")
    func appendRefusesBroken() throws {
        let (log, head) = try Self.makeLog(entries: 2)
        var lines = try Self.lines(log)
        lines[0] = lines[0].replacingOccurrences(of: "\"fee\":141", with: "\"fee\":1")
        try Self.write(lines, to: log)
        #expect(throws: AuditError.self) {
            try log.append(
                unsignedPSBT: [1], summary: AuditSummary(txid: "00", destinations: []), key: Self.key, anchor: head)
        }
        #expect(try Self.lines(log).count == 2)
    }

    @Test("a garbage line is named")
    func garbage() throws {
        let (log, head) = try Self.makeLog(entries: 2)
        var lines = try Self.lines(log)
        lines.append("not json")
        try Self.write(lines, to: log)
        #expect(throws: AuditError.malformedLine(line: 3, reason: "not valid JSON (at byte 1)")) {
            try log.verify(key: Self.key, anchor: head)
        }
    }

    @Test("a line that names a field twice is refused (strict JSON); the same line once verifies")
    func duplicateField() throws {
        let (log, head) = try Self.makeLog(entries: 2)
        var lines = try Self.lines(log)
        let original = lines[1]
        lines[1] = "{\"seq\":9," + original.dropFirst()
        try Self.write(lines, to: log)
        #expect(throws: AuditError.self) { try log.verify(key: Self.key, anchor: head) }
        lines[1] = original
        try Self.write(lines, to: log)
        _ = try log.verify(key: Self.key, anchor: head)
    }

    @Test("migration: legacy entries verify unanchored; keyed entries chain onto them and then protect them")
    func migration() throws {
        let (log, head) = try Self.makeLog(entries: 0, legacy: 3)
        #expect(head == .empty)
        let legacyOnly = try log.verify(key: Self.key, anchor: nil)
        #expect(legacyOnly == AuditVerification(entries: 3, keyed: 0, legacy: 3, anchored: false, beyondAnchor: 0))
        let entry = try log.append(
            unsignedPSBT: [9], summary: try Self.summary(9), key: Self.key, anchor: nil, time: Self.time(9))
        let anchored = AuditHead(count: entry.sequence, hash: entry.hash)
        #expect(try log.verify(key: Self.key, anchor: anchored).legacy == 3)
        // A legacy entry rewritten consistently (its own SHA-256 and the next legacy link) is caught by the keyed
        // entry that follows.
        let entries = try log.entries()
        var lines = Self.rechained(
            Array(entries.prefix(3)).map {
                AuditEntry(
                    sequence: $0.sequence, time: $0.time, psbtDigest: $0.psbtDigest,
                    summary: AuditSummary(txid: $0.summary.txid, destinations: []), previousHash: $0.previousHash,
                    key: nil)
            }, key: nil)
        lines.append(entries[3].line())
        try Self.write(lines, to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: anchored) }, throws: Self.brokenAt(4))
    }

    @Test("a legacy entry after a keyed one, or after the recorded head, is refused")
    func legacyAfterKeyed() throws {
        let (log, head) = try Self.makeLog(entries: 2)
        let entries = try log.entries()
        let legacy = AuditEntry(
            sequence: 3, time: entries[1].time, psbtDigest: entries[1].psbtDigest, summary: entries[1].summary,
            previousHash: entries[1].hash, key: nil)
        try Self.write(try Self.lines(log) + [legacy.line()], to: log)
        #expect(performing: { try log.verify(key: Self.key, anchor: head) }, throws: Self.brokenAt(3))
    }
}

/// The journal through the vault: the head bound into the sealed header, migration of an older vault.
@Suite("AuditVault")
struct AuditVaultTests {
    static let password = SecretBytes(utf8: "correct horse")

    @Test("recordSignature appends a keyed entry and re-seals the vault with the new head (version 2)")
    func recordAnchors() throws {
        let (vault, _) = try VaultTests.makeVault()
        let unlocked = try vault.unlock(password: Self.password)
        #expect(unlocked.header.auditHead == .empty && unlocked.header.version == 2)
        let entry = try unlocked.recordSignature(unsignedPSBT: [1, 2, 3], summary: try AuditLogTests.summary(1))
        let reopened = try vault.unlock(password: Self.password)
        #expect(reopened.header.auditHead == AuditHead(count: 1, hash: entry.hash))
        #expect(try reopened.verifyAudit().entries == 1)
        try reopened.recordSignature(unsignedPSBT: [4], summary: try AuditLogTests.summary(2))
        let third = try vault.unlock(password: Self.password)
        #expect(third.header.auditHead?.count == 2)
        // Cut the last entry: the head in the sealed header tells.
        let lines = try AuditLogTests.lines(third.auditLog)
        try AuditLogTests.write([lines[0]], to: third.auditLog)
        #expect(throws: AuditError.truncated(expected: 2, found: 1)) { try third.verifyAudit() }
    }

    @Test("the head is authenticated: changing it in the file makes the vault fail to open")
    func headIsSealed() throws {
        let (vault, _) = try VaultTests.makeVault()
        try vault.unlock(password: Self.password).recordSignature(
            unsignedPSBT: [1], summary: try AuditLogTests.summary(1))
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(text.contains("\"entries\" : 1"))
        try text.replacingOccurrences(of: "\"entries\" : 1", with: "\"entries\" : 0").write(
            toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.tampered) { try vault.unlock(password: Self.password) }
    }

    @Test("the journal key comes from the seed: the same after passwd, different for another seed")
    func keySurvivesPasswd() throws {
        let (vault, _) = try VaultTests.makeVault()
        let unlocked = try vault.unlock(password: Self.password)
        try unlocked.recordSignature(unsignedPSBT: [1], summary: try AuditLogTests.summary(1))
        try vault.unlock(password: Self.password).changePassword(
            to: SecretBytes(utf8: "new one"), kdf: VaultTests.kdf)
        let after = try vault.unlock(password: SecretBytes(utf8: "new one"))
        #expect(try after.verifyAudit().entries == 1)
        #expect(after.header.auditHead?.count == 1)
        let message: [UInt8] = [1, 2, 3]
        #expect(after.auditKey.tag(message) == unlocked.auditKey.tag(message))
        #expect(after.auditKey.tag(message) != AuditLogTests.otherKey.tag(message))
    }

    @Test("migration: a version 1 vault (no head) with an unkeyed journal opens, verifies unanchored, then anchors")
    func migrateVersion1() throws {
        let (vault, _) = try VaultTests.makeVault()
        let unlocked = try vault.unlock(password: Self.password)
        // Write the vault as an older build did: version 1, no audit head; and a legacy journal.
        var old = unlocked.header
        old.auditHead = nil
        #expect(old.version == 1)
        try vault.write(
            header: old, payload: VaultPayload.encode(unlocked.secret, passphrase: nil),
            key: unlocked.key, overwrite: true)
        #expect(!(try String(contentsOfFile: vault.path, encoding: .utf8)).contains("\"audit\""))
        for n in 0..<2 {
            try unlocked.auditLog.append(
                unsignedPSBT: [UInt8(n)], summary: try AuditLogTests.summary(n), key: nil, anchor: nil,
                time: AuditLogTests.time(n), keyed: false)
        }
        let opened = try vault.unlock(password: Self.password)
        #expect(opened.header.version == 1 && opened.header.auditHead == nil)
        #expect(
            try opened.verifyAudit()
                == AuditVerification(entries: 2, keyed: 0, legacy: 2, anchored: false, beyondAnchor: 0))
        try opened.recordSignature(unsignedPSBT: [7], summary: try AuditLogTests.summary(7))
        let upgraded = try vault.unlock(password: Self.password)
        #expect(upgraded.header.version == 2 && upgraded.header.auditHead?.count == 3)
        #expect(try upgraded.verifyAudit().legacy == 2)
    }
}
