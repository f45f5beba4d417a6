import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin

/// WIF private keys against Bitcoin Core's key_io_valid.json / key_io_invalid.json (Tests/Vectors/base58_keys).
@Suite("WIF")
struct WIFTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let text: String
        let hex: String
        let chain: String
        let compressed: Bool
        var testDescription: String { "\(chain) \(text.prefix(10))…" }
    }

    /// Every valid entry: `[string, hex, {chain, isPrivkey, isCompressed?}]`; `isPrivate` false for addresses.
    static let all: [(valid: Valid, isPrivate: Bool)] = {
        let list = ((try? Vectors.anyJSON("base58_keys/key_io_valid.json")) as? [[Any]]) ?? []
        return list.compactMap { entry in
            guard entry.count == 3, let text = entry[0] as? String, let hex = entry[1] as? String,
                let meta = entry[2] as? [String: Any], let isPrivate = meta["isPrivkey"] as? Bool,
                let chain = meta["chain"] as? String
            else { return nil }
            let valid = Valid(text: text, hex: hex, chain: chain, compressed: meta["isCompressed"] as? Bool ?? false)
            return (valid, isPrivate)
        }
    }()
    static let privateKeys: [Valid] = all.filter(\.isPrivate).map(\.valid)
    static let invalidStrings: [String] = {
        let list = (try? Vectors.anyJSON("base58_keys/key_io_invalid.json")) as? [[String]] ?? []
        return list.compactMap(\.first)
    }()

    @Test("the vector files hold every entry")
    func counts() {
        #expect(Self.all.count == 70)
        #expect(Self.privateKeys.count == 16)
        #expect(Self.invalidStrings.count == 79)
    }

    @Test("private keys decode to the key, network and compression, and re-encode", arguments: privateKeys)
    func valid(entry: Valid) throws {
        let wif = try WIF(base58: entry.text)
        #expect(wif.privateKey.secret.unsafeCopyToArray() == TestHex.bytes(entry.hex))
        #expect(wif.isCompressed == entry.compressed)
        #expect(wif.network == (entry.chain == "main" ? .main : .test))
        #expect(wif.base58String == entry.text)
        #expect(wif.publicKeyBytes.count == (entry.compressed ? 33 : 65))
    }

    @Test("invalid strings do not decode as WIF", arguments: invalidStrings)
    func rejectsInvalid(text: String) {
        #expect(throws: WIFError.self) { _ = try WIF(base58: text) }
    }

    @Test("addresses in key_io_valid are not WIF keys")
    func addressesAreNotWIF() {
        let addresses = Self.all.filter { !$0.isPrivate }.map(\.valid.text)
        #expect(addresses.count == 54)
        for address in addresses {
            #expect(throws: WIFError.self) { _ = try WIF(base58: address) }
        }
    }

    @Test("each malformation gets its own error")
    func errors() throws {
        let key = [UInt8](repeating: 0x11, count: 32)
        #expect(throws: WIFError.unknownPrefix(0x81)) { _ = try WIF(base58: Base58.encodeCheck([0x81] + key)) }
        #expect(throws: WIFError.invalidCompressionFlag(0x02)) {
            _ = try WIF(base58: Base58.encodeCheck([0x80] + key + [0x02]))
        }
        #expect(throws: WIFError.invalidLength(32)) { _ = try WIF(base58: Base58.encodeCheck([0x80] + key.dropLast())) }
        #expect(throws: WIFError.invalidPrivateKey) {
            _ = try WIF(base58: Base58.encodeCheck([0x80] + [UInt8](repeating: 0, count: 32)))
        }
        let good = Base58.encodeCheck([0x80] + key + [0x01])
        let flipped = String(good.dropLast()) + (good.last == "a" ? "b" : "a")
        #expect(throws: WIFError.invalidChecksum) { _ = try WIF(base58: flipped) }
    }
}
