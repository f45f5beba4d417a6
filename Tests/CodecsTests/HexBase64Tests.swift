import Codecs
import Testing

/// The one hex and the one base64 of Airlock (RFC 4648 section 4 and 8 test vectors).
@Suite("Hex and base64")
struct HexBase64Tests {
    @Test("hex: RFC 4648 section 10 vectors both ways, upper case, reversed, a 0x prefix only where allowed")
    func hex() throws {
        let vectors: [(String, String)] = [
            ("", ""), ("f", "66"), ("fo", "666f"), ("foo", "666f6f"), ("foob", "666f6f62"), ("fooba", "666f6f6261"),
            ("foobar", "666f6f626172"),
        ]
        for (plain, hex) in vectors {
            #expect(Hex.encode(Array(plain.utf8)) == hex)
            #expect(Hex.encode(Array(plain.utf8), uppercase: true) == hex.uppercased())
            #expect(try Hex.decode(hex.uppercased(), reversed: false) == Array(plain.utf8))
        }
        #expect(Hex.encodeReversed([0x01, 0xAB]) == "ab01")
        #expect(try Hex.decode("ab01", reversed: true) == [0x01, 0xAB])
        #expect(Hex.decode("0xAB01") == [0xAB, 0x01] && Hex.decode("ab01") == [0xAB, 0x01])
        // Refused, with the position: an odd length, a non-digit, a prefix where none is allowed.
        #expect(throws: HexError.oddLength(3)) { try Hex.decode("abc", reversed: false) }
        #expect(throws: HexError.invalidCharacter(UInt8(ascii: "g"), position: 3)) {
            try Hex.decode("abcg", reversed: false)
        }
        #expect(throws: HexError.invalidCharacter(UInt8(ascii: "x"), position: 1)) {
            try Hex.decode("0xab", reversed: false)
        }
        #expect(Hex.decode("0xabc") == nil && Hex.decode("zz") == nil)
        #expect(Hex.isHex("00ff") && !Hex.isHex("") && !Hex.isHex("0") && !Hex.isHex("0x00"))
    }

    @Test("base64: RFC 4648 section 10 vectors both ways; bad length, character and padding bits refused")
    func base64() throws {
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, text) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == text)
            #expect(try Base64.decode(text, requirePadding: true) == Array(plain.utf8))
        }
        #expect(try Base64.decode("Zg") == Array("f".utf8))  // padding optional by default
        #expect(throws: Base64Error.invalidLength(2)) { try Base64.decode("Zg", requirePadding: true) }
        #expect(throws: Base64Error.invalidLength(5)) { try Base64.decode("Zm9vY") }
        #expect(throws: Base64Error.invalidCharacter(offset: 2)) { try Base64.decode("Zm 9") }
        #expect(throws: Base64Error.nonCanonicalPadding) { try Base64.decode("Zh==") }
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }
}
