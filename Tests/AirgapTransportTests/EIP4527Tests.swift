import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// EIP-4527 `eth-sign-request` / `eth-signature` from Keystone's ur-registry-eth tests
/// (Tests/Vectors/ethereum/eip4527/keystone_ur_registry_eth.json), decoded, checked field by field and re-encoded to
/// the same UR; `crypto-hdkey` with coin type 60; single- and multi-part through the payload decoder.
@Suite("EIP-4527")
struct EIP4527Tests {
    struct File: Decodable {
        struct Request: Decodable, Sendable, CustomTestStringConvertible {
            let name: String
            let ur: String
            let requestId: String
            let signData: String
            let dataType: UInt64
            let chainId: UInt64
            let path: String
            let sourceFingerprint: String
            let origin: String?
            var testDescription: String { name }
        }
        struct Signature: Decodable, Sendable, CustomTestStringConvertible {
            let name: String
            let ur: String
            let requestId: String
            let signature: String
            var testDescription: String { name }
        }
        let ethSignRequest: [Request]
        let ethSignature: [Signature]
    }

    static let file = try? Vectors.json("ethereum/eip4527/keystone_ur_registry_eth.json", as: File.self)

    static func uuid(_ text: String) -> [UInt8] { TestHex.bytes(text.replacingOccurrences(of: "-", with: "")) }

    @Test("The file loads: two requests and one signature")
    func count() {
        #expect(Self.file?.ethSignRequest.count == 2)
        #expect(Self.file?.ethSignature.count == 1)
    }

    @Test(
        "eth-sign-request decodes to Keystone's fields and re-encodes to the same UR",
        arguments: file?.ethSignRequest ?? [])
    func request(c: File.Request) throws {
        let ur = try UR(string: c.ur)
        guard case .ethSignRequest(let request) = try URRegistryItem(ur) else {
            Issue.record("not an eth-sign-request")
            return
        }
        #expect(request.requestID == Self.uuid(c.requestId))
        #expect(request.signData == TestHex.bytes(c.signData))
        #expect(request.dataType.rawValue == c.dataType)
        #expect(request.chainID == c.chainId)
        #expect(request.derivationPath.pathText == c.path.replacingOccurrences(of: "'", with: "h"))
        #expect(request.derivationPath.sourceFingerprint?.description == c.sourceFingerprint)
        #expect(request.origin == c.origin)
        #expect(request.address == nil)
        #expect(try URRegistryItem.ethSignRequest(request).ur().string == c.ur)
        let payload = try PayloadDecoder.decode([c.ur.uppercased()], expecting: [.ethSignRequest])
        #expect(payload.payload == .ethSignRequest(request))
    }

    @Test("eth-signature decodes and re-encodes to the same UR", arguments: file?.ethSignature ?? [])
    func signature(c: File.Signature) throws {
        let ur = try UR(string: c.ur)
        guard case .ethSignature(let signature) = try URRegistryItem(ur) else {
            Issue.record("not an eth-signature")
            return
        }
        #expect(signature.requestID == Self.uuid(c.requestId))
        #expect(signature.signature == TestHex.bytes(c.signature))
        #expect(try URRegistryItem.ethSignature(signature).ur().string == c.ur)
    }

    @Test("A long typed-data request goes out in many parts and comes back whole, in any order")
    func multiPart() throws {
        let json = Array(String(repeating: "{\"types\":{}}", count: 120).utf8)
        let request = UREthSignRequest(
            requestID: [UInt8](repeating: 7, count: 16), signData: json, dataType: .typedData, chainID: 1,
            derivationPath: URKeypath(
                components: [
                    .index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true),
                    .index(0, hardened: false), .index(3, hardened: false),
                ], sourceFingerprint: KeyFingerprint(rawValue: 0x1234_5678)),
            address: [UInt8](repeating: 0xAB, count: 20), origin: "airlock-watcher")
        let frames = try FrameEncoder(urMaxFragmentLength: 100).frames(for: .ethSignRequest(request), format: .ur)
        #expect(frames.count > 10)
        let decoded = try PayloadDecoder.decode(frames.reversed(), expecting: [.ethSignRequest])
        #expect(decoded.payload == .ethSignRequest(request))
        #expect(decoded.format == .ur)
    }

    @Test("crypto-hdkey with Ethereum use-info (coin type 60) round-trips; another coin type is refused")
    func hdKey() throws {
        let key = URHDKey(
            keyData: [0x02] + [UInt8](repeating: 0x11, count: 32), chainCode: [UInt8](repeating: 0x22, count: 32),
            network: .mainnet,
            origin: URKeypath(
                components: [.index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true)],
                sourceFingerprint: KeyFingerprint(rawValue: 0xDEAD_BEEF), depth: 3),
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            parentFingerprint: KeyFingerprint(rawValue: 0x0102_0304), name: "Airlock", note: "account.standard",
            coinType: 60)
        let text = try URRegistryItem.hdKey(key).ur().string
        #expect(text.hasPrefix("ur:crypto-hdkey/"))
        #expect(try PayloadDecoder.decode([text]).payload == .hdKey(key))
        var bitcoin = key
        bitcoin.coinType = nil
        #expect(try URHDKey(serialized: bitcoin.serialized()) == bitcoin)
        // The same key with coin type 145 in its use-info.
        let cbor = key.serialized()
        let patched = try #require(Self.replacing([0x18, 0x3C], with: [0x18, 0x91], in: cbor))
        #expect(throws: URError.self) { try URHDKey(serialized: patched) }
    }

    static func replacing(_ needle: [UInt8], with replacement: [UInt8], in haystack: [UInt8]) -> [UInt8]? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle {
            return Array(haystack[..<i]) + replacement + Array(haystack[(i + needle.count)...])
        }
        return nil
    }

    @Test("Malformed requests are refused naming the field; the intact request is accepted")
    func malformed() throws {
        let good = UREthSignRequest(
            requestID: [UInt8](repeating: 1, count: 16), signData: [0xC0], dataType: .personalMessage, chainID: 1,
            derivationPath: URKeypath(components: [.index(44, hardened: true)]))
        #expect(try UREthSignRequest(serialized: good.serialized()) == good)
        var badType = good.serialized()
        let typeAt = try #require(Self.replacing([0x03, 0x03], with: [0x03, 0x09], in: badType))
        badType = typeAt
        #expect(throws: URError.invalidRegistryItem(type: "eth-sign-request", reason: "data-type is not 1, 2, 3 or 4"))
        {
            try UREthSignRequest(serialized: badType)
        }
        var shortAddress = good
        shortAddress.address = [1, 2, 3]
        #expect(throws: URError.invalidRegistryItem(type: "eth-sign-request", reason: "address is not 20 bytes")) {
            try UREthSignRequest(serialized: shortAddress.serialized())
        }
        var shortID = good
        shortID.requestID = [1, 2]
        #expect(throws: URError.self) { try UREthSignRequest(serialized: shortID.serialized()) }
        #expect(throws: URError.self) { try UREthSignRequest(serialized: [0xA0]) }
        #expect(throws: URError.self) {
            try UREthSignature(serialized: UREthSignature(requestID: nil, signature: [1]).serialized())
        }
    }
}
