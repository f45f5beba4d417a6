import Testing

@testable import QRImage

/// Bad input gets a typed error, never a crash or a huge allocation.
@Suite("Bad input")
struct BadInputTests {
    @Test("an empty file")
    func empty() throws {
        #expect(throws: QRImageError.emptyInput) { try QRReader().read(png: []) }
        let bench = try Workbench()
        try bench.write([], to: "empty.png")
        #expect(throws: QRImageError.emptyInput) { try QRReader().read(contentsOfFile: bench.path("empty.png")) }
    }

    @Test("data that is not a PNG")
    func notPNG() {
        #expect(throws: QRImageError.notPNG(prefix: Array("GIF89a\u{1}\u{0}".utf8))) {
            try QRReader().read(png: Array("GIF89a\u{1}\u{0}rest of a gif".utf8))
        }
        #expect(throws: QRImageError.notPNG(prefix: [0x89, 0x50])) { try QRReader().read(png: [0x89, 0x50]) }
    }

    @Test("a PNG truncated at several points", arguments: [9, 20, 33, 60, 200, -20])
    func truncated(cut: Int) throws {
        let png = try QRCode(text: "TRUNCATED PAYLOAD 0123456789").pngData()
        let length = cut > 0 ? cut : png.count + cut
        let error = #expect(throws: QRImageError.self) { try QRReader().read(png: Array(png.prefix(length))) }
        switch error {
        case .invalidPNG(let message): #expect(!message.isEmpty)
        case .truncatedChunk(let type, let declared, let available): #expect(declared > available && !type.isEmpty)
        default: Issue.record("expected invalidPNG or truncatedChunk, got \(String(describing: error))")
        }
    }

    @Test("a chunk declaring 2 GB in a 159-byte file is refused before libpng allocates it (FuzzPNG finding)")
    func forgedChunkLength() throws {
        // IHDR 23×23 gray, then a tEXt chunk whose length field says 0x7E000025 bytes; 16 bytes follow its type, so
        // 12 are left for data once its 4-byte CRC is counted.
        let ihdr = Self.chunk("IHDR", [0, 0, 0, 23, 0, 0, 0, 23, 8, 0, 0, 0, 0])
        let text = [0x7E, 0x00, 0x00, 0x25] + Array("tEXt".utf8) + Array("date:modify\u{0}2026".utf8)
        let png = GrayImage.pngSignature + ihdr + text
        #expect(throws: QRImageError.truncatedChunk(type: "tEXt", declaredLength: 0x7E00_0025, available: 12)) {
            try QRReader().read(png: png)
        }
    }

    @Test("a truncated chunk is refused with its type and lengths")
    func truncatedChunk() throws {
        let png = try QRCode(text: "CUT").pngData()
        // Cut 20 bytes into the IDAT chunk's data, well before its declared end.
        let idat = try #require((8..<png.count - 4).first { Array(png[$0..<$0 + 4]) == Array("IDAT".utf8) })
        let cut = Array(png.prefix(idat + 4 + 20))
        let declared = png[(idat - 4)..<idat].reduce(0) { $0 << 8 | Int($1) }
        #expect(declared > 20)
        #expect(throws: QRImageError.truncatedChunk(type: "IDAT", declaredLength: declared, available: 16)) {
            try QRReader().read(png: cut)
        }
    }

    @Test("a corrupted chunk CRC")
    func badCRC() throws {
        var png = try QRCode(text: "CRC").pngData()
        png[29] ^= 0xFF  // inside the IHDR CRC
        let error = #expect(throws: QRImageError.self) { try QRReader().read(png: png) }
        #expect(error.map { if case .invalidPNG = $0 { true } else { false } } == true)
    }

    @Test("a PNG with no code in it")
    func noCode() throws {
        let bench = try Workbench()
        try bench.convert(["-size", "300x200", "gradient:white-gray40", "+noise", "Gaussian", "blank.png"])
        #expect(throws: QRImageError.noCodeFound(width: 300, height: 200)) {
            try QRReader().read(contentsOfFile: bench.path("blank.png"))
        }
    }

    @Test("a header declaring 200000 x 200000 pixels is refused before allocating")
    func hugeDimensions() throws {
        let png = try Self.pngHeaderOnly(width: 200_000, height: 200_000)
        #expect(throws: QRImageError.imageTooLarge(width: 200_000, height: 200_000, maxPixels: 100_000_000)) {
            try QRReader().read(png: png)
        }
        #expect(throws: QRImageError.imageTooLarge(width: 2_000, height: 2_000, maxPixels: 1_000_000)) {
            try QRReader(maxPixels: 1_000_000).read(png: Self.pngHeaderOnly(width: 2_000, height: 2_000))
        }
        #expect(throws: QRImageError.invalidParameter(name: "maxPixels", value: 0)) { try QRReader(maxPixels: 0) }
    }

    @Test("a missing file")
    func missingFile() {
        let error = #expect(throws: QRImageError.self) { try QRReader().read(contentsOfFile: "/nonexistent/x.png") }
        #expect(
            error.map { if case .fileUnreadable(path: "/nonexistent/x.png", _) = $0 { true } else { false } } == true)
    }

    @Test("batch reading reports each file's result in order")
    func batch() throws {
        let bench = try Workbench()
        var paths: [String] = []
        for index in 0..<6 {
            paths.append(try bench.write(try QRCode(text: "FRAME \(index)").pngData(), to: "f\(index).png"))
        }
        paths.insert(try bench.write(Array("not a png".utf8), to: "bad.png"), at: 3)
        let results = QRReader.readFiles(atPaths: paths, workers: 2)
        #expect(results.map(\.path) == paths)
        let texts = results.map { try? $0.result.get().first?.text }
        #expect(texts == ["FRAME 0", "FRAME 1", "FRAME 2", nil, "FRAME 3", "FRAME 4", "FRAME 5"])
        #expect(throws: QRImageError.notAnImage(prefix: Array("not a p".utf8) + [0x6E])) { try results[3].result.get() }
    }

    /// A PNG signature, a valid IHDR chunk (gray, 8-bit) for the given size, one tiny IDAT and IEND.
    static func pngHeaderOnly(width: UInt32, height: UInt32) throws -> [UInt8] {
        let ihdr = bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]  // an empty zlib stream
        return GrayImage.pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    /// A PNG chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    /// The four big-endian bytes of `value`.
    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// CRC-32 (ISO 3309) as PNG chunks use it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
