import Testing

@testable import QRImage

/// Payloads rendered to PNG with libqrencode + libpng and read back byte for byte with libpng + zbar.
@Suite("QR round trip (ISO/IEC 18004 byte and alphanumeric modes)")
struct RoundTripTests {
    @Test("binary payloads read back byte-exact", arguments: [10, 100, 400, 1_000, 2_000, QRCode.maxBinaryCount])
    func binary(count: Int) throws {
        var random = TestBytes(seed: UInt64(count))
        let payload = random.next(count)
        let code = try QRCode(bytes: payload)
        let found = try QRReader().read(png: code.pngData())
        #expect(found.count == 1)
        #expect(found.first?.bytes == payload)
    }

    @Test("every byte value survives (zbar binary mode, no charset conversion)")
    func allByteValues() throws {
        let payload = (0...255).map { UInt8($0) } + [0x00, 0xFF, 0xC3, 0x28, 0xE2, 0x82]
        let found = try QRReader().read(png: QRCode(bytes: payload).pngData())
        #expect(found.map(\.bytes) == [payload])
    }

    @Test("upper-case UR text uses the alphanumeric mode and reads back", arguments: [5, 200, 400, 1_000, 2_138])
    func urText(payload: Int) throws {
        var random = TestBytes(seed: 7 + UInt64(payload))
        let text = random.urText(payload: payload)
        let code = try QRCode(text: text)
        let found = try QRReader().read(png: code.pngData())
        #expect(found.map(\.text) == [text])
        if payload == 400 {
            // 821 characters at level L: alphanumeric mode fits version 16, 8-bit mode would need version 20.
            #expect(code.version == 16)
            #expect(try QRCode(bytes: Array(text.utf8)).version == 20)
        }
    }

    @Test("mixed-case and non-ASCII text reads back as its UTF-8 bytes")
    func unicodeText() throws {
        let text = "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.001&label=Caf\u{E9} \u{20BF} \u{1F600}"
        let found = try QRReader().read(png: QRCode(text: text).pngData())
        #expect(found.map(\.bytes) == [Array(text.utf8)])
    }

    @Test("each error-correction level round-trips", arguments: QRErrorCorrection.allCases)
    func levels(level: QRErrorCorrection) throws {
        var random = TestBytes(seed: 99)
        let payload = random.next(500)
        let code = try QRCode(bytes: payload, errorCorrection: level)
        #expect(code.errorCorrection == level)
        #expect(try QRReader().read(png: code.pngData()).map(\.bytes) == [payload])
    }

    @Test("a higher level needs a larger version for the same payload")
    func levelCost() throws {
        let payload = [UInt8](repeating: 0x5A, count: 300)
        let versions = try QRErrorCorrection.allCases.map { try QRCode(bytes: payload, errorCorrection: $0).version }
        #expect(versions == versions.sorted())
        #expect(versions.first ?? 0 < versions.last ?? 0)
    }

    @Test("a forced version is used exactly, and a payload too big for it is refused")
    func forcedVersion() throws {
        let code = try QRCode(bytes: [1, 2, 3], version: 7)
        #expect(code.version == 7)
        #expect(code.size == 45)
        #expect(try QRReader().read(png: code.pngData()).map(\.bytes) == [[1, 2, 3]])
        #expect(throws: QRImageError.payloadTooLarge(byteCount: 100, errorCorrection: .low, version: 1)) {
            try QRCode(bytes: [UInt8](repeating: 1, count: 100), version: 1)
        }
        #expect(throws: QRImageError.invalidVersion(41)) { try QRCode(bytes: [1], version: 41) }
        #expect(throws: QRImageError.invalidVersion(0)) { try QRCode(text: "A", version: 0) }
    }

    @Test("payload limits: 2953 bytes fit at level L, 2954 do not; 1273 at level H")
    func limits() throws {
        #expect(try QRCode(bytes: [UInt8](repeating: 7, count: 2_953)).version == 40)
        #expect(throws: QRImageError.payloadTooLarge(byteCount: 2_954, errorCorrection: .low, version: nil)) {
            try QRCode(bytes: [UInt8](repeating: 7, count: 2_954))
        }
        #expect(try QRCode(bytes: [UInt8](repeating: 7, count: 1_273), errorCorrection: .high).version == 40)
        #expect(throws: QRImageError.payloadTooLarge(byteCount: 1_274, errorCorrection: .high, version: nil)) {
            try QRCode(bytes: [UInt8](repeating: 7, count: 1_274), errorCorrection: .high)
        }
    }

    @Test("empty payloads and NUL in text are refused")
    func emptyAndNUL() {
        #expect(throws: QRImageError.emptyInput) { try QRCode(bytes: []) }
        #expect(throws: QRImageError.emptyInput) { try QRCode(text: "") }
        #expect(throws: QRImageError.textContainsNUL) { try QRCode(text: "A\u{0}B") }
    }

    @Test("module size and margin set the image size; bad values are refused")
    func geometry() throws {
        let code = try QRCode(text: "HELLO", version: 2)
        for (moduleSize, margin) in [(1, 0), (3, 4), (6, 4), (10, 2)] {
            let image = try GrayImage(png: code.pngData(moduleSize: moduleSize, margin: margin), maxPixels: 1 << 24)
            #expect(image.width == (25 + 2 * margin) * moduleSize)
            #expect(image.height == image.width)
        }
        #expect(throws: QRImageError.invalidParameter(name: "moduleSize", value: 0)) { try code.pngData(moduleSize: 0) }
        #expect(throws: QRImageError.invalidParameter(name: "margin", value: -1)) { try code.pngData(margin: -1) }
    }
}
