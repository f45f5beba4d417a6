import TestSupport
import Testing

@testable import Ethereum

/// EIP-55 "Test Cases" (Tests/Vectors/ethereum/eip55_checksum_addresses.json).
@Suite("EIP-55")
struct EIP55Tests {
    struct File: Decodable {
        struct Case: Decodable, Sendable, CustomTestStringConvertible {
            let address: String
            let category: String
            var testDescription: String { "\(category) \(address)" }
        }
        let cases: [Case]
    }

    static let cases = (try? Vectors.json("ethereum/eip55_checksum_addresses.json", as: File.self))?.cases ?? []

    @Test("The file loads")
    func count() { #expect(Self.cases.count >= 8) }

    @Test("Checksum of the lower-case form is the EIP's form; the EIP's form parses", arguments: cases)
    func checksum(c: File.Case) throws {
        let lower = "0x" + c.address.dropFirst(2).lowercased()
        #expect(try EthereumAddress(string: lower).checksummed == c.address)
        #expect(try EthereumAddress(string: c.address).checksummed == c.address)
    }

    @Test("A mixed-case address with one letter's case flipped is refused", arguments: cases)
    func badChecksum(c: File.Case) throws {
        var chars = Array(c.address)
        guard let i = chars.indices.dropFirst(2).first(where: { chars[$0].isLetter }) else { return }
        chars[i] = chars[i].isUppercase ? Character(chars[i].lowercased()) : Character(chars[i].uppercased())
        let flipped = String(chars)
        let body = flipped.dropFirst(2)
        let mixed = body.contains { $0.isLowercase } && body.contains { $0.isUppercase }
        if mixed {
            #expect(throws: EthereumAddressError.badChecksum) { try EthereumAddress(string: flipped) }
        } else {
            // Flipping the only letter of an all-caps/all-lower address gives another uniform-case form, accepted.
            #expect(try EthereumAddress(string: flipped).checksummed == c.address)
        }
    }

    @Test("Malformed addresses are refused with their reason")
    func malformed() {
        #expect(throws: EthereumAddressError.missingPrefix) {
            try EthereumAddress(string: "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
        }
        #expect(throws: EthereumAddressError.invalidHex) {
            try EthereumAddress(string: "0xZaAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
        }
        #expect(throws: EthereumAddressError.invalidLength(19)) {
            try EthereumAddress(string: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA")
        }
    }
}
