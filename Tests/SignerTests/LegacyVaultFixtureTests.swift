import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation
import TestSupport
import Testing

@testable import Signer

/// A vault and journal written by the build before the Codecs JSON writer (Tests/Fixtures/legacy-vault, made by its
/// make.py with main's `airlock-signer`, when the files were written with Foundation's `JSONSerialization`): this
/// build opens the vault, verifies the journal's keyed chain and head, and writes the same bytes for the same fields.
@Suite("Legacy vault fixture")
struct LegacyVaultFixtureTests {
    static let password = "legacy-pw"
    /// The hashes of the three entries, as main's `audit --json` listed them.
    static let hashes = [
        "0d934f86a34e4dcc5b827e2c961de9d89886ff19c0000883b0a2b58495a6c2ff",
        "0978366f7539abbdb4e538dbaaae17f2875adb82ec57c1481b81957c7e290068",
        "41553ef7be0d8640f7a7d075fa9f0574270adb3fc8bf6abc9727f5dc30a53200",
    ]

    /// A copy of the fixture in a fresh directory (the test may change it), and the path of its vault.
    static func copy() throws -> String {
        let source = Vectors.packageRoot.appendingPathComponent("Tests/Fixtures/legacy-vault")
        let dir = NSTemporaryDirectory() + "airlock-legacy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["vault.airlock", "vault.airlock.audit"] {
            try FileManager.default.copyItem(
                atPath: source.appendingPathComponent(name).path, toPath: dir + "/" + name)
        }
        return dir + "/vault.airlock"
    }

    static func unlock(_ path: String) throws -> UnlockedVault {
        try Vault(path: path).unlock(password: SecretBytes(copying: Array(password.utf8)))
    }

    @Test("the old vault opens and its journal verifies, with the hashes it was written with")
    func opensAndVerifies() throws {
        let path = try Self.copy()
        let unlocked = try Self.unlock(path)
        #expect(unlocked.header.masterFingerprint.hexString == "73c5da0a")
        #expect(unlocked.tokens.map(\.symbol) == ["USDC"])
        #expect(unlocked.header.auditHead == AuditHead(count: 3, hash: try [UInt8](hex: Self.hashes[2])))
        let verification = try unlocked.verifyAudit()
        #expect(verification.entries == 3 && verification.keyed == 3 && verification.legacy == 0)
        #expect(verification.anchored && verification.beyondAnchor == 0)
        let entries = try AuditLog(vaultPath: path).entries()
        #expect(entries.map(\.hash.hexString) == Self.hashes)
        #expect(entries.map { $0.ethereum != nil } == [false, false, true])
    }

    @Test("this build writes the old files' bytes: every journal line and the vault file")
    func writesTheSameBytes() throws {
        let path = try Self.copy()
        let lines = try String(contentsOfFile: path + ".audit", encoding: .utf8).split(separator: "\n").map(String.init)
        let entries = try AuditLog(vaultPath: path).entries()
        #expect(entries.map { $0.line() } == lines)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try VaultFile(serialized: bytes).serialized() == bytes)
    }

    @Test("a changed vault field or journal line is refused; the untouched copy opens (control)")
    func tamperingIsRefused() throws {
        let path = try Self.copy()
        _ = try Self.unlock(path)
        let vault = try String(contentsOfFile: path, encoding: .utf8)
        try vault.replacingOccurrences(of: "\"USDC\"", with: "\"USDT\"").write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.tampered) { try Self.unlock(path) }
        try vault.write(toFile: path, atomically: true, encoding: .utf8)
        let journal = try String(contentsOfFile: path + ".audit", encoding: .utf8)
        try journal.replacingOccurrences(of: "\"amount\":150000", with: "\"amount\":150001").write(
            toFile: path + ".audit", atomically: true, encoding: .utf8)
        #expect(throws: AuditError.self) { try Self.unlock(path).verifyAudit() }
    }
}
