import Testing

@testable import QRImage

/// Real-world damage made with ImageMagick: screenshots rescaled, phone photos of a screen (rotation, blur, noise,
/// uneven light), printed-and-scanned pages (JPEG, gray paper).
@Suite("Reading degraded images (ImageMagick)")
struct DegradedImageTests {
    /// A ~400-byte UR frame and a 300-byte binary payload, the two kinds of code Airlock shows.
    static let payloads: [(name: String, bytes: [UInt8])] = {
        var random = TestBytes(seed: 400)
        return [("ur", Array(random.urText(payload: 400).utf8)), ("binary", random.next(300))]
    }()

    /// ImageMagick arguments between input and output file, by damage.
    static let damages: [(String, [String])] = [
        ("scaled x0.5", ["-resize", "50%"]),
        ("scaled x3", ["-resize", "300%"]),
        ("rotated 7 degrees", ["-background", "white", "-rotate", "7"]),
        ("blurred", ["-blur", "0x2"]),
        ("Gaussian noise", ["-attenuate", "0.6", "+noise", "Gaussian"]),
        ("impulse noise", ["-attenuate", "0.3", "+noise", "Impulse"]),
        ("low contrast", ["+level", "35%,70%"]),
        // Beyond what zbar alone (and zbarimg) reads; these need the reader's retry passes.
        ("blurred heavily", ["-blur", "0x2.5"]),
        ("heavy impulse noise", ["-attenuate", "0.6", "+noise", "Impulse"]),
        ("low contrast with noise", ["+level", "45%,60%", "-attenuate", "0.5", "+noise", "Gaussian"]),
    ]

    @Test("decodes after damage", arguments: damages.map(\.0), [0, 1])
    func damaged(damage: String, payloadIndex: Int) throws {
        let payload = Self.payloads[payloadIndex].bytes
        let arguments = Self.damages.first { $0.0 == damage }?.1 ?? []
        let bench = try Workbench()
        try bench.write(try code(for: payloadIndex).pngData(), to: "in.png")
        try bench.convert(["in.png"] + arguments + ["out.png"])
        #expect(try QRReader().read(contentsOfFile: bench.path("out.png")).map(\.bytes) == [payload])
    }

    @Test("decodes after JPEG compression and conversion back to PNG", arguments: [75, 40, 20], [0, 1])
    func jpeg(quality: Int, payloadIndex: Int) throws {
        let bench = try Workbench()
        try bench.write(try code(for: payloadIndex).pngData(), to: "in.png")
        try bench.convert(["in.png", "-quality", "\(quality)", "out.jpg"])
        try bench.convert(["out.jpg", "back.png"])
        #expect(
            try QRReader().read(contentsOfFile: bench.path("back.png")).map(\.bytes) == [
                Self.payloads[payloadIndex].bytes
            ])
    }

    @Test("decodes a tiny JPEG: scaled to 30% (under 2 px a module) at quality 30", arguments: [0, 1])
    func tinyJPEG(payloadIndex: Int) throws {
        let bench = try Workbench()
        try bench.write(try code(for: payloadIndex).pngData(), to: "in.png")
        try bench.convert(["in.png", "-resize", "30%", "-quality", "30", "small.jpg"])
        try bench.convert(["small.jpg", "small.png"])
        #expect(
            try QRReader().read(contentsOfFile: bench.path("small.png")).map(\.bytes) == [
                Self.payloads[payloadIndex].bytes
            ])
    }

    @Test("decodes on a photo-like background: gradient, noise, code not filling the frame", arguments: [0, 1])
    func photoBackground(payloadIndex: Int) throws {
        let bench = try Workbench()
        try bench.write(try code(for: payloadIndex).pngData(moduleSize: 4), to: "in.png")
        // A dim, unevenly lit gray page (gradient), the code printed on it (multiply), then sensor noise.
        try bench.convert([
            "-size", "1100x900", "gradient:gray35-gray85", "(", "in.png", "-background", "white", "-gravity", "center",
            "-extent", "1100x900", ")", "-compose", "multiply", "-composite", "-attenuate", "0.4", "+noise",
            "Gaussian", "-colorspace", "Gray", "photo.png",
        ])
        #expect(
            try QRReader().read(contentsOfFile: bench.path("photo.png")).map(\.bytes) == [
                Self.payloads[payloadIndex].bytes
            ])
    }

    @Test("decodes a phone-photo simulation: rotated, blurred, shaded, noisy and JPEG-compressed", arguments: [0, 1])
    func phonePhoto(payloadIndex: Int) throws {
        let bench = try Workbench()
        try bench.write(try code(for: payloadIndex).pngData(), to: "in.png")
        try bench.convert([
            "in.png", "-background", "white", "-rotate", "7", "-blur", "0x1.2", "(", "+clone", "-sparse-color",
            "Barycentric", "0,0 gray60 %w,%h white", ")", "-compose", "multiply", "-composite", "-attenuate", "0.4",
            "+noise", "Gaussian", "-resize", "70%", "-quality", "50", "photo.jpg",
        ])
        try bench.convert(["photo.jpg", "photo.png"])
        #expect(
            try QRReader().read(contentsOfFile: bench.path("photo.png")).map(\.bytes) == [
                Self.payloads[payloadIndex].bytes
            ])
    }

    @Test("decodes a whole sheet scaled to half size and JPEG-compressed")
    func damagedSheet() throws {
        var random = TestBytes(seed: 12)
        let texts = (1...12).map { random.urText(payload: 100, part: $0, of: 12) }
        let bench = try Workbench()
        try bench.write(try QRSheet(codes: texts.map { try QRCode(text: $0) }).pngData(), to: "sheet.png")
        try bench.convert(["sheet.png", "-resize", "50%", "-quality", "60", "sheet.jpg"])
        try bench.convert(["sheet.jpg", "sheet-back.png"])
        let found = try QRReader(thorough: true).read(contentsOfFile: bench.path("sheet-back.png"))
        #expect(found.compactMap(\.text) == texts)
    }

    private func code(for payloadIndex: Int) throws -> QRCode {
        let payload = Self.payloads[payloadIndex].bytes
        return payloadIndex == 0
            ? try QRCode(text: String(decoding: payload, as: UTF8.self)) : try QRCode(bytes: payload)
    }
}
