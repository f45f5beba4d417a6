import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// Tests/Vectors/bcur/bytewords_spec_examples.json and bytewords_wordlist.json (Research bcr-2020-012).
@Suite("Bytewords (BCR-2020-012)")
struct BytewordsSpecTests {
    struct Example: Decodable, Sendable, CustomTestStringConvertible {
        let description: String
        let bodyHex: String
        let crc32Hex: String
        let bodyWithChecksumHex: String
        let standard: String
        let uri: String?
        let minimal: String
        var testDescription: String { description }
    }

    static func examples() throws -> [Example] {
        struct File: Decodable { let examples: [Example] }
        return try Vectors.json("bcur/bytewords_spec_examples.json", as: File.self).examples
    }

    @Test("Spec examples: checksum and all three styles, both directions", arguments: try examples())
    func example(_ e: Example) throws {
        let body = TestHex.bytes(e.bodyHex)
        #expect(String(format: "%08x", CRC32.checksum(body)) == e.crc32Hex)
        #expect(TestHex.string(body + CRC32.bigEndianBytes(body)) == e.bodyWithChecksumHex)
        #expect(Bytewords.encode(body, style: .standard) == e.standard)
        if let uri = e.uri {
            #expect(Bytewords.encode(body, style: .uri) == uri)
            #expect(try Bytewords.decode(uri, style: .uri) == body)
        }
        #expect(Bytewords.encode(body, style: .minimal) == e.minimal)
        #expect(try Bytewords.decode(e.standard, style: .standard) == body)
        #expect(try Bytewords.decode(e.minimal, style: .minimal) == body)
    }

    @Test("The spec holds 2 examples")
    func count() throws { #expect(try Self.examples().count == 2) }

    @Test("Word list: all 256 words and minimal pairs, each decodes to its byte")
    func wordList() throws {
        struct File: Decodable {
            let words: [String]
            let minimal: [String]
        }
        let file = try Vectors.json("bcur/bytewords_wordlist.json", as: File.self)
        #expect(file.words.count == 256 && file.minimal.count == 256)
        #expect(Bytewords.words == file.words)
        for byte in 0...255 {
            let encoded = Bytewords.encode([UInt8(byte)], style: .minimal)
            #expect(encoded.prefix(2) == file.minimal[byte])
            #expect(try Bytewords.decode(encoded, style: .minimal) == [UInt8(byte)])
            #expect(
                try Bytewords.decode(Bytewords.encode([UInt8(byte)], style: .standard), style: .standard) == [
                    UInt8(byte)
                ])
        }
        #expect(Set(file.minimal).count == 256)
    }

    @Test("Bad bytewords: unknown word, odd minimal length, flipped checksum")
    func bad() throws {
        #expect(throws: BytewordsError.invalidWord("abcd")) {
            try Bytewords.decode("abcd able acid also lava", style: .standard)
        }
        #expect(throws: BytewordsError.invalidLength(3)) { try Bytewords.decode("aea", style: .minimal) }
        #expect(throws: BytewordsError.checksumMismatch) { try Bytewords.decode("aeadaolazmjendeowf", style: .minimal) }
        #expect(throws: BytewordsError.invalidWord("zz")) {
            try Bytewords.decode("zzadaolazmjendeoti", style: .minimal)
        }
    }
}
