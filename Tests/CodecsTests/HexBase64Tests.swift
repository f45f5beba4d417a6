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

    @Test("hex, sixteen digits at a time: every byte value at every position of a word, any length, both orders")
    func hexWords() throws {
        // The oracle: each pair read by the standard library's integer parser, or the first character it refuses.
        func reference(_ text: [UInt8], reversed: Bool) -> Result<[UInt8], HexError> {
            guard text.count % 2 == 0 else { return .failure(.oddLength(text.count)) }
            var out: [UInt8] = []
            for i in stride(from: 0, to: text.count, by: 2) {
                for j in [i, i + 1] where UInt8(String(decoding: [text[j]], as: UTF8.self), radix: 16) == nil {
                    return .failure(.invalidCharacter(text[j], position: j))
                }
                out.append(UInt8(String(decoding: text[i..<(i + 2)], as: UTF8.self), radix: 16) ?? 0)
            }
            return .success(reversed ? out.reversed() : out)
        }
        func decode(_ text: [UInt8], reversed: Bool) -> Result<[UInt8], HexError> {
            text.withUnsafeBytes { Hex.decode(utf8: $0, reversed: reversed) }
        }
        let digits = Array("0123456789abcdefABCDEF".utf8)
        var state: UInt64 = 33
        func random() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        // Valid texts of every length up to 80 digits, mixed case: the same bytes as the oracle's.
        var lengths = 0
        for length in stride(from: 0, through: 80, by: 2) {
            let text = (0..<length).map { _ in digits[random() % digits.count] }
            for reversed in [false, true] {
                let ours = decode(text, reversed: reversed)
                #expect(ours == reference(text, reversed: reversed), "\(length)")
                if case .success = ours { lengths += 1 }
            }
        }
        #expect(lengths == 82)  // control: all of them decoded
        // Every byte value at each position of a 48-digit text (three words, then a tail): the same bytes, or the
        // same first bad character at the same position.
        let base = (0..<48).map { _ in digits[random() % digits.count] }
        var refused = 0
        for position in 0..<base.count {
            for value in 0...255 {
                var text = base
                text[position] = UInt8(value)
                for reversed in [false, true] {
                    let ours = decode(text, reversed: reversed)
                    #expect(ours == reference(text, reversed: reversed), "\(position) \(value)")
                    if case .failure = ours { refused += 1 }
                }
            }
        }
        // Control: 22 of the 256 values are digits; every other is refused, in both orders.
        #expect(refused == 48 * (256 - 22) * 2)
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
