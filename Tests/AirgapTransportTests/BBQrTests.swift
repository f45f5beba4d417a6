import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// Tests/Vectors/bbqr/bbqr_test_data_files.json: coinkite/BBQr test_data files.
struct BBQrDataFile: Sendable, CustomTestStringConvertible {
    let name: String
    let size: Int
    let sha256: String
    let bytes: [UInt8]

    var testDescription: String { name }

    static func all() throws -> [BBQrDataFile] {
        struct Entry: Decodable {
            let size: Int
            let sha256: String
            let hex: String
        }
        struct File: Decodable { let files: [String: Entry] }
        let file = try Vectors.json("bbqr/bbqr_test_data_files.json", as: File.self)
        return file.files.sorted { $0.key < $1.key }.map {
            BBQrDataFile(name: $0.key, size: $0.value.size, sha256: $0.value.sha256, bytes: TestHex.bytes($0.value.hex))
        }
    }
}

@Suite("BBQr (coinkite BBQr.md)")
struct BBQrTests {
    /// Joins real-scan.txt and checks upstream's assertions (file type, text fragments).
    ///
    /// The part count comes from the parts' own headers; the byte-exact decoding is compared with Python's zlib and
    /// base32 in Tests/e2e/test_bbqr_real_scan.py.
    @Test("real-scan.txt: 26 scanned parts with repeats join to the expected text")
    func realScan() throws {
        let lines = try Vectors.text("bbqr/real-scan.txt").split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.isEmpty }
        #expect(lines.count == 26)
        let expected = try #require(
            try Vectors.anyJSON("bbqr/real_scan_expected.json") as? [String: Any])
        let upstream = try #require(expected["upstream_expected"] as? [String: Any])
        // Header `B$` encoding, file type, total (2 base-36 digits), index (2 base-36 digits).
        let totals = Set(lines.map { Int($0.dropFirst(4).prefix(2), radix: 36) })
        let indexes = Set(lines.map { Int($0.dropFirst(6).prefix(2), radix: 36) })
        #expect(totals.count == 1)
        let total = try #require(totals.first ?? nil)
        #expect(indexes == Set((0..<total).map { Optional($0) }))
        var joiner = BBQrJoiner()
        var accepted = 0
        for line in lines where try joiner.receive(line) { accepted += 1 }
        #expect(accepted == total)
        let bytes = try #require(joiner.result)
        #expect(joiner.fileType?.rawValue == (upstream["file_type"] as? String)?.first)
        #expect(joiner.encoding == .zlib)
        let text = String(decoding: bytes, as: UTF8.self)
        let fragments = upstream["decoded_contains"] as? [String] ?? []
        #expect(!fragments.isEmpty)
        for fragment in fragments { #expect(text.contains(fragment)) }
    }

    /// Python's standard library (base32 and raw-deflate zlib, as BBQr.md specifies) decodes the same scanned parts:
    /// a peer that shares no code with the joiner computes the expected bytes.
    @Test("real-scan.txt: the joined bytes equal Python's independent base32 + zlib decoding")
    func realScanAgainstPython() throws {
        let path = Vectors.packageRoot.appendingPathComponent("Tests/Vectors/bbqr/real-scan.txt").path
        let peer = """
            import base64, sys, zlib
            parts, totals = {}, set()
            for line in open(sys.argv[1]):
                line = line.strip()
                if line:
                    assert line[:2] == "B$" and line[2] == "Z", line[:8]
                    parts[int(line[6:8], 36)] = line[8:]
                    totals.add(int(line[4:6], 36))
            (total,) = totals
            assert sorted(parts) == list(range(total)), sorted(parts)
            body = "".join(parts[i] for i in range(total))
            raw = base64.b32decode(body + "=" * (-len(body) % 8))
            sys.stdout.write(zlib.decompress(raw, wbits=-10).hex())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", peer, path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let hex = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let expected = TestHex.bytes(hex)
        #expect(expected.count > 1000)

        var joiner = BBQrJoiner()
        for line in try Vectors.text("bbqr/real-scan.txt").split(whereSeparator: \.isNewline) where !line.isEmpty {
            _ = try joiner.receive(String(line))
        }
        #expect(joiner.result == expected)
    }

    @Test("Every test_data file round-trips through H, 2 and Z", arguments: try BBQrDataFile.all())
    func roundTrip(file: BBQrDataFile) throws {
        #expect(file.bytes.count == file.size)
        #expect(TestHex.string(SHA256.hash(file.bytes)) == file.sha256)
        let fileType: BBQr.FileType = file.name.hasSuffix(".psbt") ? .psbt : .transaction
        for encoding in BBQr.Encoding.allCases {
            let split = try BBQrSplitter(encoding: encoding, versions: 5...40).split(file.bytes, fileType: fileType)
            let capacity = try #require(QRCapacity.alphanumericCharacters(version: split.version))
            #expect(split.parts.allSatisfy { $0.utf8.count <= capacity })
            #expect(
                split.parts.allSatisfy { $0.allSatisfy { "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ$%*+-./:".contains($0) } }
            )
            var joiner = BBQrJoiner()
            for part in split.parts.reversed() { try joiner.receive(part) }
            #expect(joiner.result == file.bytes)
            #expect(joiner.fileType == fileType)
        }
    }

    @Test("test_data files: the reference's wbits=10 sizes are matched or beaten (BBQr.md compression table)")
    func compressionSizes() throws {
        let table = [
            "1in1000out.psbt": 22095, "1in100out.psbt": 2654, "1in10out.psbt": 670, "1in20out.psbt": 897,
            "1in2out.psbt": 458, "devils-txn.txn": 356, "finalized-by-ckcc.txn": 807, "last.txn": 530,
            "nfc-result.txn": 362, "signed.txn": 77090,
        ]
        let files = try BBQrDataFile.all()
        #expect(files.count == 10)
        for file in files {
            let compressed = try Deflate.compress(file.bytes)
            #expect(compressed.count <= (table[file.name] ?? 0) + 8, "\(file.name): \(compressed.count)")
            #expect(try Deflate.inflate(compressed) == file.bytes)
        }
    }

    @Test("Parts are even, a multiple of 8 characters in base32, and the default stays at version 25 or below")
    func evenSplit() throws {
        var rng = Xoshiro256(string: "BBQr")
        let data = rng.nextData(20_000)
        let split = try BBQrSplitter().split(data, fileType: .binary)
        #expect(split.encoding == .base32)  // random data does not compress
        #expect(split.version <= BBQrSplitter.defaultMaxVersion)
        let bodies = split.parts.map { $0.dropFirst(8).count }
        #expect(bodies.dropLast().allSatisfy { $0 % 8 == 0 && $0 == bodies[0] })
        #expect((bodies.last ?? 0) <= bodies[0] && (bodies.last ?? 0) > bodies[0] / 2)
        #expect(split.parts[0].hasPrefix("B$2B" + BBQr.base36(split.parts.count) + "00"))
    }

    @Test("Bad input: lying count, mixed payloads, mixed encodings, conflicts, garbage")
    func badInput() throws {
        let split = try BBQrSplitter(encoding: .hex, versions: 5...5).split(
            [UInt8](repeating: 0xAB, count: 300), fileType: .psbt)
        #expect(split.parts.count > 2)
        // Headers that lie about the count: a part claiming one part fewer than the others is another series;
        // an index beyond its own count is rejected; a count too high leaves the series incomplete.
        let n = split.parts.count
        var lying = BBQrJoiner()
        try lying.receive(split.parts[0])
        let short = "B$HP" + BBQr.base36(n - 1) + "01" + split.parts[1].dropFirst(8)
        #expect(throws: BBQrError.mixedPayloads(expected: "B$HP" + BBQr.base36(n), actual: "B$HP" + BBQr.base36(n - 1)))
        {
            try lying.receive(short)
        }
        #expect(throws: BBQrError.invalidHeader("B$HP0205")) { try BBQrPart("B$HP0205AB") }
        var tooMany = BBQrJoiner()
        for (i, p) in split.parts.enumerated() {
            try tooMany.receive("B$HP" + BBQr.base36(n + 1) + BBQr.base36(i) + p.dropFirst(8))
        }
        #expect(!tooMany.isComplete)
        #expect(tooMany.missingIndexes == [n])
        // Parts that no honest split produces: a final part longer than the others.
        var uneven = BBQrJoiner()
        try uneven.receive("B$HP0200AB")
        #expect(throws: BBQrError.inconsistentPartLengths(index: 1)) { try uneven.receive("B$HP0201ABCD") }
        // Mixed payloads (different count) and mixed encodings.
        var mixed = BBQrJoiner()
        try mixed.receive(split.parts[0])
        #expect(throws: BBQrError.mixedPayloads(expected: "B$HP" + BBQr.base36(n), actual: "B$2P" + BBQr.base36(n))) {
            try mixed.receive("B$2P" + BBQr.base36(n) + "01AAAAAAAA")
        }
        #expect(throws: BBQrError.conflictingPart(index: 0)) { try mixed.receive(split.parts[0] + "00") }
        #expect(try mixed.receive(split.parts[0]) == false)
        #expect(mixed.missingIndexes == Array(1..<n))
        for garbage in ["", "B$", "B$HP01", "B$QP0100AB", "B$HQ0100AB", "B$HP0000AB", "B$HP0101AB", "hello"] {
            #expect(throws: BBQrError.self) { try BBQrPart(garbage) }
        }
        var bad = BBQrJoiner()
        #expect(throws: BBQrError.invalidBody(index: 0, .invalidLength(encoding: "hex", length: 3))) {
            try bad.receive("B$HP0100ABC")
        }
        var badZ = BBQrJoiner()
        #expect(throws: BBQrError.self) { try badZ.receive("B$ZU0100AAAAAAAA") }
    }

    @Test("Headers are case-insensitive; non-ASCII header characters are errors, not traps")
    func headerCase() throws {
        var joiner = BBQrJoiner()
        try joiner.receive("B$hp0100abcd")
        #expect(joiner.result == [0xAB, 0xCD])
        #expect(throws: BBQrError.unknownEncoding("ß")) { try BBQrPart("B$ßP0100AB") }
        #expect(throws: BBQrError.invalidHeader("B$HPßß00")) { try BBQrPart("B$HPßß00AB") }
    }
}
