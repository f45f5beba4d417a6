import Bitcoin
import TestSupport
import Testing

/// The BIP173 / BIP350 vector files (Tests/Vectors/bech32/).
struct Bech32Vectors: Decodable {
    struct StringCase: Decodable, CustomTestStringConvertible, Sendable {
        let string: String
        let reason: String?
        let stringBytesHex: String?
        var testDescription: String { reason.map { "\(string) (\($0))" } ?? string }
        /// The raw string, rebuilt from `stringBytesHex` (latin-1) where the JSON string carries a non-ASCII byte.
        var raw: String {
            guard let hex = stringBytesHex else { return string }
            return String(TestHex.bytes(hex).map { Character(Unicode.Scalar($0)) })
        }
    }
    struct AddressCase: Decodable, CustomTestStringConvertible, Sendable {
        let address: String
        let scriptPubKey: String?
        let reason: String?
        var testDescription: String { address }
    }
    let validStrings: [StringCase]
    let invalidStrings: [StringCase]
    let validAddresses: [AddressCase]
    let invalidAddresses: [AddressCase]

    static func bip173() throws -> Bech32Vectors { try Vectors.json("bech32/bip173_vectors.json") }
    static func bip350() throws -> Bech32Vectors { try Vectors.json("bech32/bip350_vectors.json") }
}

/// BIP173 and BIP350 checksum vectors: every valid and invalid string.
@Suite("BIP173 / BIP350 bech32 strings")
struct Bech32Tests {
    @Test(
        "BIP173 valid bech32 strings decode as bech32 and re-encode",
        arguments: try Bech32Vectors.bip173().validStrings)
    func bip173Valid(_ vector: Bech32Vectors.StringCase) throws {
        let decoded = try Bech32.decode(vector.raw)
        #expect(decoded.variant == .bech32)
        #expect(try Bech32.encode(hrp: decoded.hrp, data: decoded.data, variant: .bech32) == vector.raw.lowercased())
    }

    @Test(
        "BIP350 valid bech32m strings decode as bech32m and re-encode",
        arguments: try Bech32Vectors.bip350().validStrings)
    func bip350Valid(_ vector: Bech32Vectors.StringCase) throws {
        let decoded = try Bech32.decode(vector.raw)
        #expect(decoded.variant == .bech32m)
        #expect(try Bech32.encode(hrp: decoded.hrp, data: decoded.data, variant: .bech32m) == vector.raw.lowercased())
    }

    @Test(
        "BIP173 / BIP350 invalid strings are rejected",
        arguments: try Bech32Vectors.bip173().invalidStrings + Bech32Vectors.bip350().invalidStrings)
    func invalid(_ vector: Bech32Vectors.StringCase) {
        #expect(throws: EncodingError.self) { try Bech32.decode(vector.raw) }
    }

    @Test("A one-character change breaks the checksum")
    func checksumMismatch() {
        #expect(throws: EncodingError.checksumMismatch) { try Bech32.decode("a12uel5m") }
    }

    @Test("Mixed case is rejected by name")
    func mixedCase() {
        #expect(throws: EncodingError.mixedCase) { try Bech32.decode("A12uEL5L") }
    }

    @Test("Over 90 characters is rejected")
    func overLength() {
        let long = "a1" + String(repeating: "q", count: 89)
        #expect(throws: EncodingError.self) { try Bech32.decode(long) }
        #expect(throws: EncodingError.self) {
            try Bech32.encode(hrp: "a", data: [UInt8](repeating: 0, count: 83), variant: .bech32)
        }
    }

    @Test("5-to-8-bit conversion rejects non-zero and excess padding")
    func padding() throws {
        let five = try Bech32.convertBits([0xFF], from: 8, to: 5, pad: true)
        #expect(five == [31, 28])
        #expect(try Bech32.convertBits(five, from: 5, to: 8, pad: false) == [0xFF])
        #expect(throws: EncodingError.invalidPadding) { try Bech32.convertBits([31, 29], from: 5, to: 8, pad: false) }
        #expect(throws: EncodingError.invalidPadding) {
            try Bech32.convertBits([31, 28, 0], from: 5, to: 8, pad: false)
        }
    }
}
