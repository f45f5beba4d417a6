import BitcoinCrypto
import TestSupport
import Testing

@testable import Bitcoin

/// BIP32 test vectors 1–5 (Tests/Vectors/bip32/bip32_vectors.json) and the key/path types around them.
@Suite("BIP32")
struct BIP32Tests {
    struct File: Decodable {
        struct Vector: Decodable {
            let vector: Int
            let seed: String
            let chains: [Chain]
        }
        struct Chain: Decodable {
            let path: String
            let xpub: String
            let xprv: String
        }
        struct Invalid: Decodable, CustomTestStringConvertible {
            let key: String
            let reason: String
            var testDescription: String { reason }
        }
        let vectors: [Vector]
        let invalidExtendedKeys: [Invalid]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let vector: Int
        let seed: String
        let path: String
        let xpub: String
        let xprv: String
        var testDescription: String { "vector \(vector) \(path)" }
    }

    static let file: File =
        (try? Vectors.json("bip32/bip32_vectors.json")) ?? File(vectors: [], invalidExtendedKeys: [])
    static let chains: [Case] = file.vectors.flatMap { v in
        v.chains.map { Case(vector: v.vector, seed: v.seed, path: $0.path, xpub: $0.xpub, xprv: $0.xprv) }
    }

    @Test("the vector file has every case")
    func counts() {
        #expect(Self.file.vectors.count == 4)  // vector 5 is the invalid keys
        #expect(Self.chains.count == 17)
        #expect(Self.file.invalidExtendedKeys.count == 16)
    }

    @Test("seed → path gives the xprv and xpub", arguments: chains)
    func derivation(chain: Case) throws {
        let master = try ExtendedPrivateKey(seed: SecretBytes(copying: TestHex.bytes(chain.seed)))
        let path = try DerivationPath(string: chain.path)
        let key = try master.derive(path)
        #expect(key.base58String == chain.xprv)
        #expect(key.extendedPublicKey.base58String == chain.xpub)
        #expect(key.depth == UInt8(path.count))
        // Parsing gives the same key back, and the public key re-serializes byte for byte.
        let parsed = try ExtendedPrivateKey(base58: chain.xprv)
        #expect(parsed.base58String == chain.xprv)
        #expect(parsed.fingerprint == key.fingerprint)
        let xpub = try ExtendedPublicKey(base58: chain.xpub)
        #expect(xpub.base58String == chain.xpub)
        #expect(xpub == key.extendedPublicKey)
        // CKDpub from the parent agrees with CKDpriv wherever the last step is normal.
        if let last = path.components.last, !last.isHardened {
            let parent = try master.derive(DerivationPath(Array(path.components.dropLast())))
            #expect(try parent.extendedPublicKey.deriveChild(last).base58String == chain.xpub)
            // The many-children path (a descriptor's `/*`) gives the vector's key too.
            #expect(try parent.extendedPublicKey.normalChildren.publicKey(last) == xpub.publicKey)
        }
    }

    /// The reason text of each vector-5 key and the error it must produce.
    static func expectedError(for reason: String) -> BIP32Error? {
        switch reason {
        case "pubkey version / prvkey mismatch": .publicVersionWithPrivateKey
        case "prvkey version / pubkey mismatch": .privateVersionWithPublicKey
        case "invalid pubkey prefix 04": .invalidPublicKeyPrefix(0x04)
        case "invalid prvkey prefix 04": .invalidPrivateKeyPrefix(0x04)
        case "invalid pubkey prefix 01": .invalidPublicKeyPrefix(0x01)
        case "invalid prvkey prefix 01": .invalidPrivateKeyPrefix(0x01)
        case "zero depth with non-zero parent fingerprint": .zeroDepthWithParentFingerprint
        case "zero depth with non-zero index": .zeroDepthWithChildNumber
        case "private key 0 not in 1..n-1", "private key n not in 1..n-1": .privateKeyOutOfRange
        case "invalid pubkey 020000000000000000000000000000000000000000000000000000000000000007": .invalidPublicKey
        case "invalid checksum": .invalidChecksum
        default: nil
        }
    }

    @Test("vector 5 invalid keys are rejected with their reason", arguments: file.invalidExtendedKeys)
    func invalidKey(entry: File.Invalid) throws {
        if entry.reason == "unknown extended key version" {
            #expect {
                _ = try ExtendedKey(base58: entry.key)
            } throws: { error in
                guard case .unknownVersion = error as? BIP32Error else { return false }
                return true
            }
            return
        }
        let expected = try #require(Self.expectedError(for: entry.reason), "unmapped reason \(entry.reason)")
        #expect(throws: expected) { _ = try ExtendedKey(base58: entry.key) }
    }

    @Test("paths parse h, H and ' and print h")
    func pathParsing() throws {
        let path = try DerivationPath(string: "m/84h/1'/0H/0/5")
        #expect(path.description == "m/84h/1h/0h/0/5")
        #expect(path.components.map(\.rawValue) == [0x8000_0054, 0x8000_0001, 0x8000_0000, 0, 5])
        #expect(try DerivationPath(string: "m").count == 0)
        #expect(try DerivationPath(string: "0/2147483647h").description == "m/0/2147483647h")
        #expect(try DerivationPath(string: "m/2147483647").components == [ChildNumber(rawValue: 0x7FFF_FFFF)])
    }

    @Test(
        "bad paths get a typed error",
        arguments: [
            ("m/2147483648h", BIP32Error.indexOutOfRange("2147483648h", position: 2)),
            ("m/2147483648", .indexOutOfRange("2147483648", position: 2)),
            ("m/99999999999999999999", .indexOutOfRange("99999999999999999999", position: 2)),
            ("m/1/x", .invalidPathComponent("x", position: 4)),
            ("m//1", .invalidPathComponent("", position: 2)),
            ("m/1/", .invalidPathComponent("", position: 4)),
            ("m/-1", .invalidPathComponent("-1", position: 2)),
            ("m/+1", .invalidPathComponent("+1", position: 2)),
            ("m/1hh", .invalidPathComponent("1hh", position: 2)),
            ("m/ 1", .invalidPathComponent(" 1", position: 2)),
            ("n/1", .invalidPathComponent("n", position: 0)),
        ])
    func badPath(text: String, error: BIP32Error) {
        #expect(throws: error) { _ = try DerivationPath(string: text) }
    }

    @Test("a path over 255 levels is rejected")
    func overlongPath() throws {
        let ok = "m" + String(repeating: "/1", count: 255)
        #expect(try DerivationPath(string: ok).count == 255)
        #expect(throws: BIP32Error.pathTooDeep(levels: 256)) {
            _ = try DerivationPath(string: ok + "/1")
        }
        #expect(throws: BIP32Error.pathTooDeep(levels: 256)) {
            _ = try DerivationPath([ChildNumber](repeating: ChildNumber(rawValue: 1), count: 256))
        }
    }

    @Test("depth 255 cannot have children; public keys have no hardened children")
    func derivationLimits() throws {
        let master = try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        let xpub = master.extendedPublicKey
        let hardened = try ChildNumber.hardened(0)
        #expect(throws: BIP32Error.hardenedDerivationFromPublicKey(hardened)) { _ = try xpub.deriveChild(hardened) }
        let deep = try ExtendedPublicKey(
            version: xpub.version, depth: 255, parentFingerprint: Fingerprint(value: 1),
            childNumber: ChildNumber(rawValue: 1), chainCode: xpub.chainCode, publicKey: xpub.publicKey)
        #expect(throws: BIP32Error.depthOverflow) { _ = try deep.deriveChild(ChildNumber(rawValue: 0)) }
        #expect(throws: BIP32Error.depthOverflow) { _ = try deep.normalChildren.publicKey(ChildNumber(rawValue: 0)) }
        #expect(throws: BIP32Error.hardenedDerivationFromPublicKey(hardened)) {
            _ = try xpub.normalChildren.publicKey(hardened)
        }
        var bytes = master.serialized().unsafeCopyToArray()
        bytes[4] = 255
        bytes[5..<13] = [0, 0, 0, 1, 0, 0, 0, 1]
        guard case .privateKey(let deepPrivate) = try ExtendedKey(serialized: bytes) else {
            Issue.record("expected a private key")
            return
        }
        #expect(throws: BIP32Error.depthOverflow) { _ = try deepPrivate.deriveChild(hardened) }
        #expect(throws: BIP32Error.invalidSeedLength(15)) {
            _ = try ExtendedPrivateKey(seed: SecretBytes(count: 15))
        }
        #expect(throws: BIP32Error.invalidSeedLength(65)) {
            _ = try ExtendedPrivateKey(seed: SecretBytes(count: 65))
        }
    }

    @Test("the many-children derivation equals CKDpub and CKDpriv child by child, 301 children of one deriver")
    func normalChildren() throws {
        let master = try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 9, count: 32)))
        let accountPrivate = try master.derive(DerivationPath(string: "m/84h/1h/0h/1"))
        let account = accountPrivate.extendedPublicKey
        let children = account.normalChildren
        let numbers = (0..<300).map { ChildNumber(rawValue: UInt32($0)) } + [ChildNumber(rawValue: 0x7FFF_FFFF)]
        for number in numbers {
            let expected = try account.deriveChild(number)
            #expect(try children.publicKey(number) == expected.publicKey)
            // CKDpriv's public key, the other side of the same child.
            #expect(try accountPrivate.deriveChild(number).publicKey == expected.publicKey)
        }
        // Order does not matter: the deriver keeps no state between children.
        #expect(
            try children.publicKey(ChildNumber(rawValue: 5)) == account.deriveChild(ChildNumber(rawValue: 5)).publicKey)
    }

    @Test("malformed text: wrong length, bad characters, kind mismatch")
    func malformed() throws {
        let xpub =
            "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
        let valid = try ExtendedPublicKey(base58: xpub)
        #expect(throws: BIP32Error.invalidLength(79)) {
            _ = try ExtendedKey(base58: Base58.encodeCheck(valid.serialized() + [0]))
        }
        #expect(throws: BIP32Error.invalidLength(77)) {
            _ = try ExtendedKey(base58: Base58.encodeCheck(valid.serialized().dropLast()))
        }
        #expect(throws: BIP32Error.invalidBase58(.invalidCharacter("0", position: 4))) {
            _ = try ExtendedKey(base58: "xpub0" + xpub.dropFirst(5))
        }
        #expect(throws: BIP32Error.unexpectedKeyKind(expectedPrivate: true)) {
            _ = try ExtendedPrivateKey(base58: xpub)
        }
    }

    @Test("private key descriptions are redacted")
    func redaction() throws {
        let master = try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 1, count: 16)))
        #expect(!"\(master)".contains(master.base58String.prefix(20)))
        #expect("\(master)".contains("<redacted>"))
    }
}
