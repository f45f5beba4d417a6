import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// Descriptor vectors of BIP380–387 and 389 (Tests/Vectors/descriptors/bip38x_vectors.json): every valid descriptor
/// gives exactly the scripts listed, every invalid one is rejected with a `DescriptorError`.
@Suite("Descriptors (BIP380-389)")
struct DescriptorTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let file: String
        let descriptor: String
        /// Per child index 0, 1, 2 … the scripts (one per index, or combo's set).
        let scriptsByIndex: [[String]]
        /// For BIP389: the expansions.
        let expansions: [String]
        var testDescription: String { "\(file) \(descriptor.prefix(60))" }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let file: String
        let descriptor: String
        let reason: String
        var testDescription: String { "\(file) \(reason)" }
    }

    /// `bip386_full` is BIP386's whole list (issue 27), beside the held-out `bip386` file.
    static let files = [
        "bip381", "bip382", "bip383", "bip384", "bip385", "bip386", "bip386_full", "bip387", "bip389",
    ]

    static func load(_ name: String) -> [String: Any] {
        let path = name.hasSuffix("_full") ? "descriptors/\(name).json" : "descriptors/\(name)_vectors.json"
        return ((try? Vectors.anyJSON(path)) as? [String: Any]) ?? [:]
    }

    static let valid: [Valid] = files.flatMap { name -> [Valid] in
        let entries = load(name)["valid"] as? [[String: Any]] ?? []
        return entries.compactMap { entry in
            guard let descriptor = entry["descriptor"] as? String else { return nil }
            var byIndex: [[String]] = []
            if let children = entry["children"] as? [[String: Any]] {
                byIndex = children.map { $0["scripts"] as? [String] ?? [] }
            } else if let scripts = entry["scripts"] as? [String] {
                byIndex = descriptor.hasPrefix("combo(") ? [scripts] : scripts.map { [$0] }
            }
            return Valid(
                file: name, descriptor: descriptor, scriptsByIndex: byIndex,
                expansions: entry["expansions"] as? [String] ?? [])
        }
    }

    static let invalid: [Invalid] = files.flatMap { name -> [Invalid] in
        let entries = load(name)["invalid"] as? [[String: Any]] ?? []
        return entries.compactMap { entry in
            guard let descriptor = entry["descriptor"] as? String, let reason = entry["reason"] as? String else {
                return nil
            }
            return Invalid(file: name, descriptor: descriptor, reason: reason)
        }
    }

    @Test("the vector files hold every case")
    func counts() {
        #expect(Self.valid.count == 49)
        #expect(Self.invalid.count == 36)
    }

    @Test("valid descriptors give exactly the listed scripts", arguments: valid)
    func validDescriptor(vector: Valid) throws {
        let descriptor = try Descriptor(string: vector.descriptor)
        if !vector.expansions.isEmpty {
            let expanded = descriptor.singlePathDescriptors()
            #expect(expanded.count == vector.expansions.count)
            for (mine, theirs) in zip(expanded, vector.expansions) {
                let expected = try Descriptor(string: theirs)
                #expect(mine.string(includingPrivateKeys: true) == expected.string(includingPrivateKeys: true))
                #expect(
                    mine.string(includingPrivateKeys: true, checksum: false)
                        == theirs.replacingOccurrences(of: "'", with: "h"))
                for index: UInt32 in 0..<3 {
                    let a = try? mine.scriptPubKeys(at: index)
                    let b = try? expected.scriptPubKeys(at: index)
                    #expect(a == b)
                }
            }
            for (path, single) in expanded.enumerated() where (try? single.scriptPubKeys(at: 0)) != nil {
                #expect(try descriptor.scriptPubKeys(at: 0, path: path) == single.scriptPubKeys(at: 0))
            }
            return
        }
        if vector.scriptsByIndex.isEmpty {
            // BIP386 gives one valid descriptor without scripts: it must parse and print again.
            #expect(
                try Descriptor(string: descriptor.string(includingPrivateKeys: true)).string() == descriptor.string())
            return
        }
        #expect(descriptor.isRanged == (vector.scriptsByIndex.count > 1))
        for (index, scripts) in vector.scriptsByIndex.enumerated() {
            #expect(try descriptor.scriptPubKeys(at: UInt32(index)).map(\.hexString) == scripts)
        }
        // The normalised text, public and private, parses back to the same scripts and checksums verify.
        // A public form of hardened children (`xpub…/*h`) parses but cannot derive, so it is only parsed.
        let publicDerives = !descriptor.expression.keys.contains { $0.wildcard == .hardened }
        #expect(try Descriptor(string: descriptor.string(), requireChecksum: true).string() == descriptor.string())
        for text in [descriptor.string(), descriptor.string(includingPrivateKeys: true)]
        where publicDerives || text != descriptor.string() {
            let again = try Descriptor(string: text, requireChecksum: true)
            for index in vector.scriptsByIndex.indices {
                #expect(try again.scriptPubKeys(at: UInt32(index)).map(\.hexString) == vector.scriptsByIndex[index])
            }
        }
        if !descriptor.hasPrivateKeys {
            #expect(descriptor.string() == descriptor.string(includingPrivateKeys: true))
        }
    }

    @Test("a key without a multipath step is the same on every branch of a multipath descriptor")
    func mixedMultipath() throws {
        let a =
            "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL"
        let b =
            "xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y"
        let mixed = try Descriptor(string: "wsh(multi(1,\(a)/<0;1>/*,\(b)/2/*))")
        let branch1 = try Descriptor(string: "wsh(multi(1,\(a)/1/*,\(b)/2/*))")
        #expect(try mixed.scriptPubKey(at: 5, path: 1) == branch1.scriptPubKey(at: 5))
        #expect(try mixed.scriptPubKey(at: 5, path: 1) == mixed.singlePathDescriptors()[1].scriptPubKey(at: 5))
        #expect(throws: DescriptorError.pathOutOfRange(path: 2, count: 2)) {
            _ = try mixed.scriptPubKey(at: 5, path: 2)
        }
    }

    @Test("invalid descriptors are rejected with a DescriptorError", arguments: invalid)
    func invalidDescriptor(vector: Invalid) {
        #expect(throws: DescriptorError.self) {
            let descriptor = try Descriptor(string: vector.descriptor)
            // Some errors only show when deriving (none in these files, but keep the check honest).
            _ = try descriptor.scriptPubKeys(at: 0)
        }
    }
}

/// BIP380 checksum cases and key expressions (Tests/Vectors/descriptors/bip380_vectors.json).
@Suite("BIP380")
struct BIP380Tests {
    struct Checksum: Sendable, CustomTestStringConvertible {
        let descriptor: String
        let valid: Bool
        let description: String
        var testDescription: String { description }
    }

    struct KeyCase: Sendable, CustomTestStringConvertible {
        let expression: String
        let note: String
        var testDescription: String { note }
    }

    static var file: [String: Any] { DescriptorTests.load("bip380") }
    static let checksums: [Checksum] = (file["checksum_tests"] as? [[String: Any]] ?? []).compactMap {
        guard let d = $0["descriptor"] as? String, let v = $0["expected_valid"] as? Bool else { return nil }
        return Checksum(descriptor: d, valid: v, description: $0["description"] as? String ?? d)
    }
    static var keys: [String: Any] { file["key_expressions"] as? [String: Any] ?? [:] }
    static let validKeys: [KeyCase] = (keys["valid"] as? [[String: Any]] ?? []).compactMap {
        guard let e = $0["expression"] as? String else { return nil }
        return KeyCase(expression: e, note: $0["description"] as? String ?? e)
    }
    static let invalidKeys: [KeyCase] = (keys["invalid"] as? [[String: Any]] ?? []).compactMap {
        guard let e = $0["expression"] as? String else { return nil }
        return KeyCase(expression: e, note: $0["reason"] as? String ?? e)
    }

    @Test("the vector file holds every case")
    func counts() {
        #expect(Self.checksums.count == 5)
        #expect(Self.validKeys.count == 14)
        #expect(Self.invalidKeys.count == 11)
    }

    @Test("checksums are verified", arguments: checksums)
    func checksum(vector: Checksum) {
        let result = Result { () throws(DescriptorError) in try Descriptor(string: vector.descriptor) }
        if vector.valid {
            #expect(throws: Never.self) { try result.get() }
        } else {
            #expect(throws: DescriptorError.self) { try result.get() }
        }
    }

    @Test("the BIP's checksum example is computed, and required when asked")
    func checksumExample() throws {
        #expect(try DescriptorChecksum.compute("raw(deadbeef)") == "89f8spxm")
        #expect(try Descriptor(string: "raw(deadbeef)").description == "raw(deadbeef)#89f8spxm")
        #expect(throws: DescriptorError.missingChecksum) {
            _ = try Descriptor(string: "raw(deadbeef)", requireChecksum: true)
        }
        #expect(throws: DescriptorError.checksumMismatch(expected: "89f8spxm", found: "89f8spxn")) {
            _ = try Descriptor(string: "raw(deadbeef)#89f8spxn")
        }
    }

    @Test("valid key expressions parse inside pk()", arguments: validKeys)
    func validKey(vector: KeyCase) throws {
        let descriptor = try Descriptor(string: "pk(\(vector.expression))")
        #expect(descriptor.expression.keys.count == 1)
        // An xpub followed by hardened steps parses, but deriving from it is a typed error.
        let afterKey = vector.expression.split(separator: "]").last.map(String.init) ?? vector.expression
        if afterKey.hasPrefix("xpub"), afterKey.split(separator: "/").dropFirst().contains(where: { $0.contains("h") })
        {
            #expect {
                _ = try descriptor.scriptPubKeys(at: 0)
            } throws: { error in
                guard case .derivation(.hardenedDerivationFromPublicKey) = error as? DescriptorError else {
                    return false
                }
                return true
            }
        } else {
            #expect(try descriptor.scriptPubKeys(at: 0).count == 1)
        }
    }

    @Test("invalid key expressions are rejected", arguments: invalidKeys)
    func invalidKey(vector: KeyCase) {
        #expect(throws: DescriptorError.self) { _ = try Descriptor(string: "pk(\(vector.expression))") }
    }
}
