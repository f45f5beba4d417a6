import Foundation
import TestSupport
import Testing

@testable import QRImage

/// SeedSigner's own SeedQR images (Tests/Vectors/seedqr/img/, from its docs/seed_qr/img/): each decodes to the exact
/// payload its spec prints, including compact payloads holding NUL, CR and LF bytes that trip many readers.
@Suite("SeedQR images from SeedSigner")
struct SeedQRImageTests {
    struct Image: Sendable, CustomTestStringConvertible {
        let path: String
        let payload: [UInt8]
        var testDescription: String { path }
    }

    static let images: [Image] = {
        guard let root = try? Vectors.anyJSON("seedqr/seedqr_vectors.json") as? [String: Any],
            let vectors = root["vectors"] as? [[String: Any]]
        else { return [] }
        var out: [Image] = []
        for vector in vectors {
            guard let images = vector["images"] as? [String: String], let digits = vector["standard_digits"] as? String,
                let bits = vector["compact_bits"] as? String
            else { continue }
            let bitBytes = Array(bits.utf8)
            let compact = stride(from: 0, to: bitBytes.count, by: 8).map { start in
                bitBytes[start..<(start + 8)].reduce(UInt8(0)) { $0 << 1 | ($1 == UInt8(ascii: "1") ? 1 : 0) }
            }
            if let standard = images["standard"] { out.append(Image(path: standard, payload: Array(digits.utf8))) }
            if let compactImage = images["compact"] { out.append(Image(path: compactImage, payload: compact)) }
        }
        return out
    }()

    @Test("all fifteen images are listed")
    func count() { #expect(Self.images.count == 15) }

    @Test("each image decodes to its payload, byte for byte", arguments: images)
    func decode(image: Image) throws {
        let path = try Vectors.directory().appendingPathComponent("seedqr").appendingPathComponent(image.path).path
        let codes = try QRReader().read(contentsOfFile: path)
        #expect(codes.map(\.bytes) == [image.payload])
    }
}
