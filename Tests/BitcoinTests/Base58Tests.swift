import Bitcoin
import TestSupport
import Testing

/// Bitcoin Core's base58_encode_decode.json (Tests/Vectors/base58_keys/): every pair.
@Suite("Base58 (Bitcoin Core base58_encode_decode.json)")
struct Base58Tests {
    struct Pair: CustomTestStringConvertible, Sendable {
        let hex: String
        let base58: String
        var testDescription: String { base58.isEmpty ? "(empty)" : base58 }
    }

    static func pairs() throws -> [Pair] {
        try Vectors.json("base58_keys/base58_encode_decode.json", as: [[String]].self).map {
            Pair(hex: $0[0], base58: $0[1])
        }
    }

    @Test("Encodes and decodes every pair", arguments: try pairs())
    func roundTrip(_ pair: Pair) throws {
        #expect(Base58.encode(TestHex.bytes(pair.hex)) == pair.base58)
        #expect(try Base58.decode(pair.base58) == TestHex.bytes(pair.hex))
    }

    @Test("Rejects characters outside the alphabet with their position")
    func invalidCharacter() {
        #expect(throws: EncodingError.invalidCharacter("0", position: 3)) { try Base58.decode("abc0") }
        #expect(throws: EncodingError.invalidCharacter("l", position: 0)) { try Base58.decode("l11") }
    }

    @Test("Base58check detects a wrong checksum and short input")
    func check() throws {
        let text = Base58.encodeCheck([0x00, 0x01, 0x02])
        #expect(try Base58.decodeCheck(text) == [0x00, 0x01, 0x02])
        var bytes = try Base58.decode(text)
        bytes[bytes.count - 1] ^= 1
        #expect(throws: EncodingError.checksumMismatch) { try Base58.decodeCheck(Base58.encode(bytes)) }
        #expect(throws: EncodingError.invalidLength(expected: "at least 4 bytes", actual: 3)) {
            try Base58.decodeCheck(Base58.encode([1, 2, 3]))
        }
    }
}
