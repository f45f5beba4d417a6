import BitcoinCrypto
import Foundation
import MessageSigning
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// BSMS (BIP129) against every test vector of the BIP (Tests/Vectors/bsms/bip129_vectors.json, converted from
/// bitcoin/bips 7fe0b034ec96): key records signed byte for byte, token keys, MACs and AES-256-CTR ciphertexts,
/// descriptor records and their first addresses.
@Suite("BSMS (BIP129)")
struct BSMSTests {
    static var modes: [[String: Any]] {
        ((try? Vectors.anyJSON("bsms/bip129_vectors.json")) as? [String: Any])?["modes"] as? [[String: Any]] ?? []
    }

    static func signers(_ mode: [String: Any]) -> [[String: String]] { mode["signers"] as? [[String: String]] ?? [] }

    @Test("the vector file holds the four modes of the BIP")
    func counts() {
        #expect(Self.modes.count == 4)
        #expect(Self.modes.map { Self.signers($0).count } == [2, 2, 2, 3])
        #expect(Self.modes.map { ($0["encrypted"] as? [Any])?.count ?? 0 } == [0, 0, 3, 6])
    }

    @Test("every key record: the signature reproduced byte for byte from the private key, and it verifies")
    func keyRecords() throws {
        for mode in Self.modes {
            for signer in Self.signers(mode) {
                let lines = try #require(signer["key_record"]).split(separator: "\n").map(String.init)
                #expect(lines.count == 5)
                let key = try WIF(base58: try #require(signer["private_key"])).privateKey
                let record = try BSMSKeyRecord(
                    token: BSMSToken(hex: lines[1]), key: lines[2], description: lines[3], privateKey: key)
                #expect(record.text == signer["key_record"])
                // The key on line 3 is the signing key's (or its xpub's) public key.
                let signature = try #require(Data(base64Encoded: lines[4]))
                let text = Array(
                    BSMSKeyRecord.signedText(
                        token: try BSMSToken(hex: lines[1]), key: lines[2], description: lines[3]
                    ).utf8)
                let address = Address.p2pkh(key.publicKey, network: .main)
                #expect(LegacyMessage.check(Array(signature), message: text, address: address) == nil)
                // Attack: another description under the same signature.
                #expect(LegacyMessage.check(Array(signature), message: text + [0x21], address: address) != nil)
            }
        }
    }

    @Test("token keys, MACs, ciphertexts and decryption of every encrypted record")
    func encryption() throws {
        for mode in Self.modes {
            let tokens = mode["tokens"] as? [String: [String: String]] ?? [:]
            for (_, entry) in tokens {
                let token = try BSMSToken(hex: try #require(entry["token"]))
                #expect(token.encryptionKey().unsafeCopyToArray().hexString == entry["encryption_key"])
            }
            let plaintexts: [String: String] = Dictionary(
                uniqueKeysWithValues: Self.signers(mode).enumerated().map {
                    ("signer_\($0.offset + 1)_key.dat", $0.element["key_record"] ?? "")
                })
            for encrypted in mode["encrypted"] as? [[String: String]] ?? [] {
                let file = try #require(encrypted["file"])
                let tokenHex: String
                if let single = tokens["all"]?["token"] {
                    tokenHex = single
                } else {
                    let number = try #require(file.first { $0.isNumber })
                    tokenHex = try #require(tokens["Signer \(number)"]?["token"])
                }
                let token = try BSMSToken(hex: tokenHex)
                let data = try #require(encrypted["data"])
                let plaintext = try token.decrypt(data)
                #expect(Array(data.prefix(64)) == Array(try #require(encrypted["mac"])))
                let expected = plaintexts[file] ?? (mode["descriptor_record"] as? String ?? "")
                #expect(String(decoding: plaintext, as: UTF8.self) == expected)
                #expect(token.encrypt(plaintext) == data)
                // Attack: one flipped ciphertext bit, or another token, fails the MAC.
                var bytes = try [UInt8](hex: data)
                bytes[bytes.count - 1] ^= 1
                #expect(throws: BSMSError.macMismatch) { try token.decrypt(bytes.hexString) }
                #expect(throws: BSMSError.macMismatch) { try BSMSToken(hex: "0011223344556677").decrypt(data) }
            }
        }
    }

    @Test("every descriptor record: its first address checks; an altered address is refused")
    func descriptorRecords() throws {
        for mode in Self.modes {
            let text = try #require(mode["descriptor_record"] as? String)
            let record = try BSMSDescriptorRecord(text: text)
            let address = try record.checkedFirstAddress(network: .main)
            #expect(address.description == record.firstAddress)
            var lines = text.split(separator: "\n").map(String.init)
            lines[3] = "bc1qwqdg6squsna38e46795at95yu9atm8azzmyvckulcc7kytlcckxswvvzej"
            let tampered = try BSMSDescriptorRecord(text: lines.joined(separator: "\n"))
            #expect(throws: BSMSError.self) { try tampered.checkedFirstAddress(network: .main) }
        }
        #expect(throws: BSMSError.self) {
            try BSMSDescriptorRecord(text: "BSMS 2.0\nwsh(x)\nNo path restrictions\nbc1q")
        }
    }
}
