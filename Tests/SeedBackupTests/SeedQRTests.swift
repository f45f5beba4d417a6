import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import SeedBackup

/// SeedSigner's SeedQR test vectors (Tests/Vectors/seedqr/seedqr_vectors.json, from its docs/seed_qr/README.md): every
/// vector, both formats.
@Suite("SeedQR (SeedSigner)")
struct SeedQRTests {
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let words: Int
        let mnemonic: String
        let standardDigits: String
        let compactBits: String
        var testDescription: String { "\(name) (\(words) words)" }

        /// The compact bitstream as bytes, eight bits a byte.
        var compactBytes: [UInt8] {
            let bits = Array(compactBits.utf8)
            return stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<(start + 8)].reduce(0) { $0 << 1 | ($1 == UInt8(ascii: "1") ? 1 : 0) }
            }
        }
    }

    struct File: Decodable {
        let vectors: [Vector]
    }

    static let vectors: [Vector] = (try? Vectors.json("seedqr/seedqr_vectors.json", as: File.self).vectors) ?? []

    @Test("the file holds all nine vectors of the spec")
    func count() { #expect(Self.vectors.count == 9) }

    @Test("mnemonic → standard digits and compact bytes, and back", arguments: vectors)
    func vector(vector: Vector) throws {
        let mnemonic = try Mnemonic(phrase: vector.mnemonic)
        let standard = SeedQR.payload(for: mnemonic, format: .standard)
        #expect(standard.unsafeCopyToArray() == Array(vector.standardDigits.utf8))
        let compact = SeedQR.payload(for: mnemonic, format: .compact)
        #expect(compact.unsafeCopyToArray() == vector.compactBytes)
        let fromStandard = try SeedQR.read(SecretBytes(copying: Array(vector.standardDigits.utf8)))
        #expect(fromStandard.format == .standard)
        #expect(fromStandard.mnemonic.phrase.unsafeCopyToArray() == Array(vector.mnemonic.utf8))
        let fromCompact = try SeedQR.read(SecretBytes(copying: vector.compactBytes))
        #expect(fromCompact.format == .compact)
        #expect(fromCompact.mnemonic.phrase.unsafeCopyToArray() == Array(vector.mnemonic.utf8))
    }

    @Test("payloads of no SeedQR shape, or naming no word, are refused")
    func refusals() throws {
        #expect(throws: SeedQRError.unrecognizedPayload(byteCount: 47)) {
            try SeedQR.read(SecretBytes(copying: Array(repeating: UInt8(ascii: "1"), count: 47)))
        }
        #expect(throws: SeedQRError.indexOutOfRange(word: 1, index: 2048)) {
            try SeedQR.read(SecretBytes(copying: Array(("2048" + String(repeating: "0000", count: 11)).utf8)))
        }
        // Twelve times "abandon" fails the BIP39 checksum.
        #expect(throws: SeedQRError.invalidMnemonic(.invalidChecksum)) {
            try SeedQR.read(SecretBytes(copying: Array(String(repeating: "0000", count: 12).utf8)))
        }
        #expect(throws: SeedQRError.unrecognizedPayload(byteCount: 17)) {
            try SeedQR.read(SecretBytes(copying: [UInt8](repeating: 7, count: 17)))
        }
    }
}
