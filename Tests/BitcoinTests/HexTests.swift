import Testing

@testable import Bitcoin

/// Hex text: `[UInt8](hex:)`, `Txid(hex:)` (byte-reversed) and `Txid(hexUTF8:)` (the store's in-place read), checked
/// against a plain reference decoder written here.
@Suite("Hex: decoding, errors, txids")
struct HexTests {
    /// Two characters at a time through `UInt8(_:radix:)`; nil for odd length or any non-hex character.
    static func reference(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard chars[i..<i + 2].allSatisfy({ "0123456789abcdefABCDEF".utf8.contains($0) }),
                let byte = UInt8(String(decoding: chars[i..<i + 2], as: UTF8.self), radix: 16)
            else { return nil }
            out.append(byte)
        }
        return out
    }

    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    @Test("every byte value decodes from lower and upper case and round-trips")
    func everyByte() throws {
        let bytes = (0...255).map(UInt8.init)
        let lower = bytes.hexString
        #expect(lower.count == 512)
        #expect(try [UInt8](hex: lower) == bytes)
        #expect(try [UInt8](hex: lower.uppercased()) == bytes)
        #expect(Self.reference(lower) == bytes)
        #expect(try [UInt8](hex: "") == [])
    }

    @Test("odd length and bad characters are refused, naming the first bad position")
    func errors() {
        #expect(throws: EncodingError.oddLength(3)) { try [UInt8](hex: "abc") }
        #expect(throws: EncodingError.invalidCharacter("g", position: 1)) { try [UInt8](hex: "0g") }
        #expect(throws: EncodingError.invalidCharacter("g", position: 0)) { try [UInt8](hex: "g0") }
        #expect(throws: EncodingError.invalidCharacter("x", position: 2)) { try [UInt8](hex: "00xy") }
        #expect(throws: EncodingError.invalidCharacter(" ", position: 3)) { try [UInt8](hex: "000 11") }
        #expect(throws: EncodingError.invalidCharacter("x", position: 1)) { try [UInt8](hex: "0x12") }
    }

    @Test("random texts decode exactly as the reference decoder does, or are refused where it refuses")
    func differential() throws {
        var rng = Seeded(state: 19)
        let alphabet = Array("0123456789abcdefABCDEF") + ["g", "G", " ", "-", "é", "\n", "0"]
        for round in 0..<2_000 {
            let length = Int.random(in: 0...40, using: &rng)
            // Mostly valid texts, so the bad ones sit at every position.
            let text = String(
                (0..<length).map { _ in
                    round % 4 == 0
                        ? alphabet.randomElement(using: &rng)! : alphabet[Int.random(in: 0..<22, using: &rng)]
                })
            let decoded = try? [UInt8](hex: text)
            #expect(decoded == Self.reference(text), "\(text.debugDescription)")
        }
    }

    @Test("a txid is shown byte-reversed; both parsers agree and refuse what is not 32 bytes")
    func txid() throws {
        // The genesis coinbase: shown as Bitcoin Core prints it, stored in internal (reversed) order.
        let shown = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"
        let txid = try Txid(hex: shown)
        #expect(txid.bytes == Array(try [UInt8](hex: shown).reversed()))
        #expect(txid.bytes.first == 0x3b && txid.bytes.last == 0x4a)
        #expect(txid.hexString == shown)
        let inPlace = try Array(shown.uppercased().utf8).withUnsafeBytes { try Txid(hexUTF8: $0) }
        #expect(inPlace == txid)
        #expect(throws: EncodingError.invalidLength(expected: "32 bytes", actual: 31)) {
            try Txid(hex: String(shown.dropLast(2)))
        }
        #expect(throws: EncodingError.oddLength(63)) {
            try Array(shown.dropLast().utf8).withUnsafeBytes { try Txid(hexUTF8: $0) }
        }
        #expect(throws: EncodingError.invalidCharacter("z", position: 63)) {
            try Txid(hex: String(shown.dropLast()) + "z")
        }
    }
}
