import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import MessageSigning

/// BIP322 against every case of the BIP's two vector files (Tests/Vectors/bip322, bitcoin/bips 7fe0b034ec96), and
/// the legacy `signmessage` format against Bitcoin Core's functional-test vector (Tests/Vectors/signmessage).
@Suite("BIP322 and legacy message signatures")
struct BIP322Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        let group: String
        let type: String
        let message: String
        let address: String
        let signature: String
        let privateKeys: [String]
        let lockTime: UInt32
        let sequence: UInt32
        var testDescription: String { "\(group) \(type) \(message.prefix(12))" }
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let description: String
        let message: String
        let address: String
        let signature: String
        var testDescription: String { description }
    }

    static func load(_ file: String) -> [String: Any] {
        ((try? Vectors.anyJSON("bip322/\(file)")) as? [String: Any]) ?? [:]
    }

    static let valid: [Case] = {
        var out: [Case] = []
        for (file, groups) in [
            ("basic-test-vectors.json", ["simple"]),
            ("generated-test-vectors.json", ["simple", "full", "proof_of_funds"]),
        ] {
            let json = load(file)
            for group in groups {
                for entry in json[group] as? [[String: Any]] ?? [] {
                    for signature in entry["bip322_signatures"] as? [String] ?? [] {
                        out.append(
                            Case(
                                group: group, type: entry["type"] as? String ?? "",
                                message: entry["message"] as? String ?? "",
                                address: entry["address"] as? String ?? "", signature: signature,
                                privateKeys: entry["private_keys"] as? [String] ?? [],
                                lockTime: UInt32(entry["lock_time"] as? Int ?? 0),
                                sequence: UInt32(entry["sequence"] as? Int ?? 0)))
                    }
                }
            }
        }
        return out
    }()

    static let errors: [ErrorCase] = {
        ["basic-test-vectors.json", "generated-test-vectors.json"].flatMap { file in
            (load(file)["error"] as? [[String: Any]] ?? []).map {
                ErrorCase(
                    description: $0["description"] as? String ?? "", message: $0["message"] as? String ?? "",
                    address: $0["address"] as? String ?? "", signature: $0["signature"] as? String ?? "")
            }
        }
    }()

    static let hashes: [[String: String]] = (load("basic-test-vectors.json")["tx_hashes"] as? [[String: String]]) ?? []

    @Test("the vector files hold every case")
    func counts() {
        // basic: 4 simple entries with 6 signatures; generated: 4 simple, 10 full, 3 proof of funds.
        #expect(Self.valid.count == 6 + 4 + 10 + 3)
        #expect(Self.errors.count == 8 + 28)
        #expect(Self.hashes.count == 3)
    }

    @Test("message hash, to_spend and to_sign txids")
    func transactionHashes() throws {
        for entry in Self.hashes {
            let message = Array((entry["message"] ?? "").utf8)
            let address = try Address(string: entry["address"] ?? "")
            #expect(BIP322.messageHash(message).hexString == entry["message_hash"])
            let toSpend = BIP322.toSpend(message: message, challenge: address.scriptPubKey)
            #expect(toSpend.txid.hexString == entry["to_spend_tx_hash"])
            #expect(BIP322.toSign(toSpend: toSpend).txid.hexString == entry["to_sign_tx_hash"])
        }
    }

    @Test("every valid signature verifies, with its time lock and sequence", arguments: valid)
    func validSignature(entry: Case) throws {
        let address = try Address(string: entry.address)
        let result = MessageVerifier.verify(
            message: Array(entry.message.utf8), address: address, signature: entry.signature)
        #expect(result == .valid(lockTime: entry.lockTime, sequence: entry.sequence))
    }

    @Test("the same signature for another message is invalid (control: the right message is valid)", arguments: valid)
    func otherMessage(entry: Case) throws {
        let address = try Address(string: entry.address)
        let result = MessageVerifier.verify(
            message: Array((entry.message + ".").utf8), address: address, signature: entry.signature)
        guard case .invalid = result else {
            Issue.record("a changed message gave \(result)")
            return
        }
    }

    @Test("every error case is refused", arguments: errors)
    func errorCase(entry: ErrorCase) throws {
        let address = try Address(string: entry.address)
        let result = MessageVerifier.verify(
            message: Array(entry.message.utf8), address: address, signature: entry.signature)
        guard case .invalid = result else {
            Issue.record("\(entry.description): \(result)")
            return
        }
    }

    @Test("our signatures verify for every single-key kind and both forms, and not for another address")
    func signAndVerify() throws {
        let keys = Self.valid.filter { $0.privateKeys.count == 1 }.map(\.privateKeys[0])
        let key = try WIF(base58: try #require(keys.first)).privateKey
        let other = try WIF(base58: try #require(keys.last)).privateKey
        let message = Array("Airlock proves ownership".utf8)
        for script in BIP322.KeyScript.allCases {
            for format in BIP322.Format.allCases {
                if format == .simple, !script.allowsSimple {
                    #expect(throws: BIP322.SigningError.simpleNotPossible(script)) {
                        try BIP322.sign(message: message, key: key, script: script, format: format)
                    }
                    continue
                }
                let signature = try BIP322.sign(message: message, key: key, script: script, format: format)
                let address = try Address(scriptPubKey: script.scriptPubKey(for: key.publicKey), network: .main)
                let text = signature.description
                #expect(text.hasPrefix(format == .simple ? "smp" : "ful"))
                #expect(
                    MessageVerifier.verify(message: message, address: address, signature: text)
                        == .valid(lockTime: 0, sequence: 0))
                let otherAddress = try Address(
                    scriptPubKey: script.scriptPubKey(for: other.publicKey), network: .main)
                guard case .invalid = MessageVerifier.verify(message: message, address: otherAddress, signature: text)
                else {
                    Issue.record("\(script) \(format) verified for another key's address")
                    continue
                }
            }
        }
    }

    @Test("a signature with a flipped bit is invalid; SIGHASH_NONE is refused; unknown opcodes are inconclusive")
    func tampering() throws {
        let key = try WIF(base58: "L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k").privateKey
        let message = Array("tamper".utf8)
        guard case .simple(let witness) = try BIP322.sign(message: message, key: key, script: .p2wpkh, format: .simple)
        else { throw TestFailure("not simple") }
        let address = Address.p2wpkh(key.publicKey, network: .main)
        #expect(
            MessageVerifier.verify(message: message, address: address, signature: .simple(witness))
                == .valid(lockTime: 0, sequence: 0))
        var flipped = witness
        flipped.items[0][10] ^= 1
        guard case .invalid = MessageVerifier.verify(message: message, address: address, signature: .simple(flipped))
        else { throw TestFailure("a flipped bit verified") }
        var none = witness
        none.items[0][none.items[0].count - 1] = 0x02
        guard
            case .invalid(let reason) = MessageVerifier.verify(
                message: message, address: address, signature: .simple(none))
        else { throw TestFailure("SIGHASH_NONE verified") }
        #expect(reason.contains("SIGHASH_ALL"))
        // A P2WSH script with OP_MUL (disabled, unknown here): inconclusive, not valid.
        let script = Script([0x51, 0x51, 0x95])
        let p2wsh = try Address(scriptPubKey: script.p2wshWrapped, network: .main)
        guard
            case .inconclusive = MessageVerifier.verify(
                message: message, address: p2wsh, signature: .simple(Witness([script.bytes])))
        else { throw TestFailure("an unknown opcode was not inconclusive") }
        // Control: OP_1 alone is a valid (if pointless) P2WSH script.
        let trivial = Script([0x51])
        let trivialAddress = try Address(scriptPubKey: trivial.p2wshWrapped, network: .main)
        #expect(
            MessageVerifier.verify(
                message: message, address: trivialAddress, signature: .simple(Witness([trivial.bytes])))
                == .valid(lockTime: 0, sequence: 0))
    }

    // MARK: - Legacy

    static let core: [String: String] =
        ((try? Vectors.anyJSON("signmessage/bitcoin_core_signmessagewithprivkey.json")) as? [String: String]) ?? [:]

    @Test("legacy: Bitcoin Core's signmessagewithprivkey vector, byte for byte, and its address rules")
    func legacyCoreVector() throws {
        let wif = try WIF(base58: try #require(Self.core["priv_key"]))
        let message = Array(try #require(Self.core["message"]).utf8)
        let signature = try LegacyMessage.sign(message, key: wif.privateKey, kind: .p2pkh)
        #expect(Data(signature).base64EncodedString() == Self.core["expected_signature"])
        let p2pkh = try Address(string: try #require(Self.core["p2pkh_address"]))
        #expect(p2pkh == Address.p2pkh(wif.privateKey.publicKey, network: .test))
        let text = try #require(Self.core["expected_signature"])
        #expect(
            MessageVerifier.verify(message: message, address: p2pkh, signature: text)
                == .valid(lockTime: 0, sequence: 0))
        // Core: "Address does not refer to key" for the same key's segwit addresses.
        for script in [BIP322.KeyScript.p2wpkh, .p2shP2wpkh] {
            let address = try Address(scriptPubKey: script.scriptPubKey(for: wif.privateKey.publicKey), network: .test)
            guard case .invalid = MessageVerifier.verify(message: message, address: address, signature: text) else {
                throw TestFailure("a P2PKH header verified for \(script)")
            }
        }
        guard case .invalid = MessageVerifier.verify(message: Array("other".utf8), address: p2pkh, signature: text)
        else { throw TestFailure("another message verified") }
    }

    @Test("legacy: BIP137 headers for segwit addresses verify only for their own kind")
    func legacySegwitHeaders() throws {
        let key = try WIF(base58: "L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k").privateKey
        let message = Array("BIP137".utf8)
        let pairs: [(LegacyMessage.Kind, BIP322.KeyScript, UInt8)] = [
            (.p2wpkh, .p2wpkh, 39), (.p2shP2wpkh, .p2shP2wpkh, 35), (.p2pkh, .p2pkh, 31),
        ]
        for (kind, script, base) in pairs {
            let signature = try LegacyMessage.sign(message, key: key, kind: kind)
            #expect((base...base + 3).contains(signature[0]))
            for (_, other, _) in pairs {
                let address = try Address(scriptPubKey: other.scriptPubKey(for: key.publicKey), network: .main)
                let result = MessageVerifier.verify(message: message, address: address, signature: .legacy(signature))
                if other == script {
                    #expect(result == .valid(lockTime: 0, sequence: 0))
                } else if case .valid = result {
                    Issue.record("a \(kind) signature verified for \(other)")
                }
            }
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
