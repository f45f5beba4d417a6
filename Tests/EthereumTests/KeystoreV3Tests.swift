import BitcoinCrypto
import Codecs
import Foundation
import TestSupport
import Testing

@testable import Ethereum

/// Keystore v3 files: Geth's test vectors (Tests/Vectors/ethereum/geth_keystore_v3_test_vector.json: the Web3 Secret
/// Storage wiki's scrypt and pbkdf2 cases, and 31- and 30-byte keys), round trips, and the refusals.
@Suite("Keystore v3")
struct KeystoreV3Tests {
    static let file = "ethereum/geth_keystore_v3_test_vector.json"

    static func cases() throws -> [(name: String, json: [UInt8], password: String, priv: String)] {
        let root = try #require(try Vectors.anyJSON(file) as? [String: [String: Any]])
        return try root.keys.sorted().map { name in
            let entry = try #require(root[name])
            let json = try JSONSerialization.data(withJSONObject: try #require(entry["json"]))
            return (
                name, Array(json), try #require(entry["password"] as? String), try #require(entry["priv"] as? String)
            )
        }
    }

    @Test("every Geth vector decrypts to its key (short keys left-padded) with its password")
    func gethVectors() throws {
        let all = try Self.cases()
        #expect(
            all.map(\.name) == [
                "30_byte_key", "31_byte_key", "wikipage_test_vector_pbkdf2", "wikipage_test_vector_scrypt",
            ])
        for c in all {
            let (key, address) = try KeystoreV3.decrypt(json: c.json, password: SecretBytes(utf8: c.password))
            let expected = String(repeating: "0", count: 64 - c.priv.count) + c.priv
            #expect(Hex.encode(key.secret.unsafeCopyToArray()) == expected, "\(c.name)")
            #expect(address == key.ethereumAddress)
            // Control: a wrong password fails the MAC.
            #expect(throws: KeystoreError.wrongPassword) {
                try KeystoreV3.decrypt(json: c.json, password: SecretBytes(utf8: c.password + "x"))
            }
        }
    }

    @Test("an edited ciphertext, IV or salt fails the MAC or decrypts to nothing the file claims")
    func edited() throws {
        let c = try #require(try Self.cases().first { $0.name == "31_byte_key" })
        let text = String(decoding: c.json, as: UTF8.self)
        for field in ["9517cd5bdbe6", "711f816911c9"] {
            #expect(text.contains(field))
            let edited = text.replacingOccurrences(of: field, with: "0" + field.dropFirst())
            #expect(throws: KeystoreError.wrongPassword) {
                try KeystoreV3.decrypt(json: Array(edited.utf8), password: SecretBytes(utf8: c.password))
            }
        }
    }

    @Test("written files decrypt again (scrypt and pbkdf2), with Geth's layout and a v4 UUID")
    func roundTrip() throws {
        let key = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x42, count: 32)))
        for kdf in [KeystoreV3.KDF.scrypt(n: 1024, r: 8, p: 1), .pbkdf2(iterations: 1000)] {
            let text = KeystoreV3.encrypt(key: key, password: SecretBytes(utf8: "pw"), kdf: kdf)
            let (back, address) = try KeystoreV3.decrypt(json: Array(text.utf8), password: SecretBytes(utf8: "pw"))
            #expect(back.secret == key.secret && address == key.ethereumAddress)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(object["version"] as? Int == 3)
            #expect(object["address"] as? String == Hex.encode(key.ethereumAddress.bytes))
            let id = try #require(object["id"] as? String)
            #expect(id.count == 36 && Array(id)[14] == "4")
            // Two files of the same key differ (fresh salt and IV).
            #expect(KeystoreV3.encrypt(key: key, password: SecretBytes(utf8: "pw"), kdf: kdf) != text)
        }
        #expect(KeystoreV3.KDF.standard == .scrypt(n: 262_144, r: 8, p: 1))
    }

    @Test("a file whose address is not its key's is refused; the same file without the address field is read")
    func addressMismatch() throws {
        let c = try #require(try Self.cases().first { $0.name == "30_byte_key" })
        var object = try #require(try JSONSerialization.jsonObject(with: Data(c.json)) as? [String: Any])
        object["address"] = String(repeating: "35", count: 20)
        let lying = Array(try JSONSerialization.data(withJSONObject: object))
        #expect(
            performing: { try KeystoreV3.decrypt(json: lying, password: SecretBytes(utf8: c.password)) },
            throws: { error in
                if case .addressMismatch = error as? KeystoreError { return true }
                return false
            })
        #expect(throws: Never.self) { try KeystoreV3.decrypt(json: c.json, password: SecretBytes(utf8: c.password)) }
    }

    @Test("KDF parameters past the bounds are refused before any work; the standard ones are within")
    func costlyParameters() throws {
        func file(_ kdfparams: String, kdf: String = "scrypt") -> [UInt8] {
            Array(
                ("{\"version\":3,\"crypto\":{\"cipher\":\"aes-128-ctr\",\"cipherparams\":{\"iv\":\""
                    + String(repeating: "00", count: 16)
                    + "\"},\"ciphertext\":\"" + String(repeating: "11", count: 32)
                    + "\",\"kdf\":\"\(kdf)\",\"kdfparams\":"
                    + kdfparams + ",\"mac\":\"" + String(repeating: "22", count: 32) + "\"}}").utf8)
        }
        let salt = "\"salt\":\"00\""
        for params in [
            "{\"dklen\":32,\"n\":16777216,\"r\":8,\"p\":1,\(salt)}",  // 16 GiB
            "{\"dklen\":32,\"n\":262144,\"r\":8,\"p\":16,\(salt)}",  // work 2^25
        ] {
            #expect(
                performing: { try KeystoreV3.decrypt(json: file(params), password: SecretBytes(utf8: "x")) },
                throws: { error in
                    if case .parametersTooCostly = error as? KeystoreError { return true }
                    return false
                })
        }
        #expect(throws: KeystoreError.parametersTooCostly("over 10,000,000 PBKDF2 iterations")) {
            try KeystoreV3.decrypt(
                json: file("{\"c\":20000000,\"dklen\":32,\"prf\":\"hmac-sha256\",\(salt)}", kdf: "pbkdf2"),
                password: SecretBytes(utf8: "x"))
        }
        // Control: small valid parameters get as far as the MAC.
        #expect(throws: KeystoreError.wrongPassword) {
            try KeystoreV3.decrypt(
                json: file("{\"dklen\":32,\"n\":1024,\"r\":8,\"p\":1,\(salt)}"), password: SecretBytes(utf8: "x"))
        }
        #expect(throws: KeystoreError.malformedField("crypto.kdfparams.n")) {
            try KeystoreV3.decrypt(
                json: file("{\"dklen\":32,\"n\":1000,\"r\":8,\"p\":1,\(salt)}"), password: SecretBytes(utf8: "x"))
        }
        #expect(throws: KeystoreError.unsupportedKDF("argon2")) {
            try KeystoreV3.decrypt(
                json: file("{\"dklen\":32,\(salt)}", kdf: "argon2"), password: SecretBytes(utf8: "x"))
        }
        #expect(throws: KeystoreError.invalidJSON) {
            try KeystoreV3.decrypt(json: Array("[1]".utf8), password: SecretBytes(utf8: "x"))
        }
    }
}
