import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// Tests/Vectors/bcur/ur_registry_examples.json (BlockchainCommons/Research bcr-2020-005…015, bcr-2023-019).
struct URRegistryExample: Decodable, Sendable, CustomTestStringConvertible {
    let doc: String
    let section: String
    let urType: String
    let ur: String?
    let urParts: [String]?
    let cborHex: String?
    let relatedText: [String]?

    var testDescription: String { "\(doc) \(section) (\(urType))" }

    static func all() throws -> [URRegistryExample] {
        struct File: Decodable { let examples: [URRegistryExample] }
        return try Vectors.json("bcur/ur_registry_examples.json", as: File.self).examples
    }
}

@Suite("UR registry (BCR-2020-006/007/010/015, BCR-2023-019)")
struct URRegistryTests {
    @Test("The vector file holds 18 examples")
    func count() throws {
        #expect(try URRegistryExample.all().count == 18)
    }

    @Test("Every example's UR decodes to its printed CBOR", arguments: try URRegistryExample.all())
    func decodesToCBOR(example: URRegistryExample) throws {
        if let text = example.ur {
            let ur = try UR(string: text)
            #expect(ur.type == example.urType)
            #expect(TestHex.string(ur.cbor) == example.cborHex)
            #expect(ur.string == text)
            // The CBOR is deterministic: it re-encodes to the same bytes.
            #expect(try CBOR(serialized: ur.cbor).serialized() == ur.cbor)
        } else {
            // The multi-part seed example: one part of a 3-part seed UR, which decodes as a valid fountain part.
            let parts = try #require(example.urParts)
            var decoder = URDecoder()
            for part in parts { #expect(try decoder.receive(part)) }
            #expect(!decoder.isComplete)
            #expect(decoder.expectedPartCount == 3)
        }
    }

    @Test(
        "psbt, crypto-output, crypto-account and account-descriptor decode to Swift values and re-encode byte-exact",
        arguments: try URRegistryExample.all().filter { URRegistryItem.supportedTypes.contains($0.urType) })
    func registryRoundTrip(example: URRegistryExample) throws {
        let ur = try UR(string: try #require(example.ur))
        let item = try URRegistryItem(ur)
        #expect(try item.ur(type: ur.type) == ur)
        switch item {
        case .psbt(let bytes): #expect(bytes.starts(with: [0x70, 0x73, 0x62, 0x74, 0xFF]))
        case .cryptoOutput(let output): #expect(output.serialized() == ur.cbor)
        case .cryptoAccount(let account):
            #expect(account.masterFingerprint.description == "37b5eed4")
            #expect(account.outputs.count == 7)
        case .accountDescriptor(let account): #expect(account.descriptors.count == 7)
        default: Issue.record("unexpected item \(item)")
        }
    }

    @Test("crypto-output descriptors render with hex keys as in BCR-2020-010 examples 1-3")
    func ecKeyDescriptors() throws {
        let examples = try URRegistryExample.all().filter { $0.urType == "crypto-output" }
        #expect(examples.count == 5)
        var ecKeyCount = 0
        for example in examples {
            guard case .cryptoOutput(let output) = try URRegistryItem(UR(string: try #require(example.ur))) else {
                Issue.record("not a crypto-output")
                continue
            }
            guard output.keys.allSatisfy({ if case .ec = $0 { true } else { false } }) else { continue }
            let text = output.descriptorText { key in
                if case .ec(let k) = key { TestHex.string(k.data) } else { "?" }
            }
            #expect(text == example.relatedText?.first)
            ecKeyCount += 1
        }
        #expect(ecKeyCount == 3)
    }

    @Test("crypto-output example 4: origin, children, raw xpub fields and key expression")
    func hdKeyFields() throws {
        let example = try #require(try URRegistryExample.all().first { $0.section == "Example/Test Vector 4" })
        guard case .cryptoOutput(let output) = try URRegistryItem(UR(string: try #require(example.ur))),
            case .pkh(.hd(let key)) = output
        else { throw URError.unsupportedType("shape") }
        #expect(key.origin?.originText == "[d34db33f/44h/0h/0h]")
        #expect(key.children?.pathText == "1/*")
        let fields = try #require(key.extendedKeyFields)
        #expect(fields.depth == 4)  // the origin says depth 4 explicitly
        #expect(fields.parentFingerprint.description == "78412e3a")
        #expect(fields.childNumber == 0x8000_0000)
        #expect(TestHex.string(fields.chainCode) == "637807030d55d01f9a0cb3a7839515d796bd07706386a6eddf06cc29a65a0e29")
        #expect(
            output.descriptorText { _ in key.keyExpression(encodedKey: "XPUB") } == "pkh([d34db33f/44h/0h/0h]XPUB/1/*)")
    }

    @Test("crypto-account renders the script expressions of BCR-2020-015")
    func accountScripts() throws {
        let example = try #require(try URRegistryExample.all().first { $0.urType == "crypto-account" })
        guard case .cryptoAccount(let account) = try URRegistryItem(UR(string: try #require(example.ur))) else {
            throw URError.unsupportedType("shape")
        }
        let rendered = account.outputs.map { output in
            output.descriptorText { key in
                guard case .hd(let hd) = key else { return "?" }
                return hd.keyExpression(encodedKey: "K")
            }
        }
        #expect(
            rendered == [
                "pkh([37b5eed4/44h/0h/0h]K)", "sh(wpkh([37b5eed4/49h/0h/0h]K))", "wpkh([37b5eed4/84h/0h/0h]K)",
                "sh(cosigner([37b5eed4/45h]K))", "sh(wsh(cosigner([37b5eed4/48h/0h/0h/1h]K)))",
                "wsh(cosigner([37b5eed4/48h/0h/0h/2h]K))", "tr([37b5eed4/86h/0h/0h]K)",
            ])
        // The expected text names each xpub; the descriptors there differ from ours only in the key.
        let expectedLines = try #require(example.relatedText?.last).split(separator: "\n")
        #expect(expectedLines.count == rendered.count)
    }

    @Test("account-descriptor substitutes @0 with the key")
    func accountDescriptorSources() throws {
        let example = try #require(try URRegistryExample.all().first { $0.urType == "account-descriptor" })
        guard case .accountDescriptor(let account) = try URRegistryItem(UR(string: try #require(example.ur))) else {
            throw URError.unsupportedType("shape")
        }
        #expect(
            account.descriptors.map(\.source) == [
                "pkh(@0)", "sh(wpkh(@0))", "wpkh(@0)", "sh(cosigner(@0))", "sh(wsh(cosigner(@0)))", "wsh(cosigner(@0))",
                "tr(@0)",
            ])
        #expect(account.descriptors[6].descriptorText { _ in "K" } == "tr(K)")
    }

    @Test("A signer-built crypto-account with testnet use-info round-trips")
    func buildAccount() throws {
        let key = URHDKey(
            keyData: [0x02] + [UInt8](repeating: 7, count: 32), chainCode: [UInt8](repeating: 9, count: 32),
            network: .testnet,
            origin: URKeypath(
                components: [.index(84, hardened: true), .index(1, hardened: true), .index(0, hardened: true)],
                sourceFingerprint: KeyFingerprint(rawValue: 0x37b5_eed4), depth: 3),
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            parentFingerprint: KeyFingerprint(rawValue: 0x1234_5678))
        let account = URCryptoAccount(
            masterFingerprint: KeyFingerprint(rawValue: 0x37b5_eed4), outputs: [.wpkh(.hd(key))])
        let ur = try URRegistryItem.cryptoAccount(account).ur()
        #expect(try URRegistryItem(UR(string: ur.string.uppercased())) == .cryptoAccount(account))
        #expect(key.keyExpression(encodedKey: "tpub") == "[37b5eed4/84h/1h/0h]tpub/0/*")
    }

    @Test("Malformed registry CBOR is a typed error")
    func malformed() throws {
        // Wrong top-level shape, bad tag, missing key-data, threshold above key count, truncated CBOR.
        let cases: [(String, String)] = [
            ("crypto-account", "a1011a37b5eed4"),
            ("crypto-output", "d90199a0"),
            ("crypto-output", "d90193d9012fa0"),
            ("crypto-output", "d90196a201030280"),
            ("crypto-account", "a2011a37b5eed402"),
            ("psbt", "a0"),
        ]
        for (type, hex) in cases {
            #expect(throws: URError.self) { try URRegistryItem(UR(type: type, cbor: TestHex.bytes(hex))) }
        }
        #expect(throws: URError.unsupportedType("seed")) { try URRegistryItem(UR(type: "seed", cbor: [0xA0])) }
    }
}
