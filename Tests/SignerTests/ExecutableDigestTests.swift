import AirGap
import Foundation
import Testing

@Suite("The selftest's SHA-256 of a file")
struct ExecutableDigestTests {
    @Test("the digest of a file is its SHA-256, across the 1 MiB pieces; a changed byte changes it")
    func digestOfAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("abc".utf8).write(to: URL(fileURLWithPath: path))
        // FIPS 180-4's example "abc".
        #expect(
            ExecutableDigest.sha256(ofFileAt: path)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 1 MiB + 1 bytes of 'a' (two reads), against its SHA-256 computed with Python's hashlib.
        try Data(repeating: 0x61, count: (1 << 20) + 1).write(to: URL(fileURLWithPath: path))
        #expect(
            ExecutableDigest.sha256(ofFileAt: path)
                == "4a3f0c0c213adea174f9a3d4c13177315b588bdb2e9c1012d3d0bf0453ca0f6a")
    }

    @Test("a file that cannot be read gives no digest; the running executable gives one")
    func unreadable() {
        #expect(ExecutableDigest.sha256(ofFileAt: "/nonexistent/airlock-signer") == nil)
        #expect(ExecutableDigest.sha256()?.utf8.count == 64)
    }
}
