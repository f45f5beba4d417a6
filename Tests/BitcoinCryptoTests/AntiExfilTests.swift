import BitcoinCrypto
import TestSupport
import Testing

/// secp256k1-zkp's `ecdsa_s2c` test values (Tests/Vectors/anti-exfil/, provenance in its PROVENANCE.md), every case,
/// and the protocol's attack cases each beside the control that succeeds.
struct AntiExfilVectors: Decodable {
    struct Fixed: Decodable {
        struct Case: Decodable, Sendable, CustomTestStringConvertible {
            let s2cData: String
            let expectedS2COpening: String
            let expectedS2CExfilOpening: String
            var testDescription: String { "s2c data \(s2cData.prefix(16))…" }
        }
        let privateKey: String
        let message: String
        let cases: [Case]
    }
    struct Parse: Decodable {
        struct Invalid: Decodable {
            let opening: String
            let reason: String
        }
        let valid: [String]
        let invalid: [Invalid]
    }
    struct Tags: Decodable {
        let data: String
        let point: String
    }
    struct Strings: Decodable {
        let message: String
        let privateKey: String
        let s2cData: String
        let hostRandomness: String
    }
    let fixedVectors: Fixed
    let openingParse: Parse
    let taggedHashTags: Tags
    let apiStrings: Strings

    static func load() throws -> AntiExfilVectors {
        try Vectors.json("anti-exfil/ecdsa_s2c_vectors.json")
    }
}

@Suite("Anti-exfil (secp256k1-zkp ecdsa_s2c vectors)")
struct AntiExfilTests {
    static let vectors = try? AntiExfilVectors.load()

    static func key(_ hex: String) throws -> PrivateKey {
        try PrivateKey(secret: SecretBytes(copying: TestHex.bytes(hex)))
    }

    @Test(
        "test_ecdsa_s2c_fixed_vectors: the nonce point with H(data) as extra data, and the signature commits to it",
        arguments: try AntiExfilVectors.load().fixedVectors.cases)
    func fixedVector(_ testCase: AntiExfilVectors.Fixed.Case) throws {
        let vectors = try #require(Self.vectors)
        let key = try Self.key(vectors.fixedVectors.privateKey)
        let message = TestHex.bytes(vectors.fixedVectors.message)
        let data = TestHex.bytes(testCase.s2cData)
        let opening = try AntiExfil.signerCommitment(
            key: key, digest: message, hostCommitment: AntiExfil.hostCommitment(entropy: data))
        #expect(opening.compressed == TestHex.bytes(testCase.expectedS2COpening))
        let signature = try AntiExfil.sign(key: key, digest: message, entropy: data)
        #expect(key.publicKey.verify(signature, digest: message))
        let expected = try PublicKey(serialized: TestHex.bytes(testCase.expectedS2COpening))
        #expect(
            AntiExfil.verify(
                signature, digest: message, publicKey: key.publicKey, entropy: data, signerCommitment: expected))
        // Attack beside the control: the plain RFC6979 signature (the entropy ignored) fails the commitment check.
        let plain = try key.signECDSA(digest: message, grindLowR: false)
        #expect(key.publicKey.verify(plain, digest: message))
        #expect(
            !AntiExfil.verify(
                plain, digest: message, publicKey: key.publicKey, entropy: data, signerCommitment: expected))
    }

    @Test(
        "test_ecdsa_anti_exfil_signer_commit: the signer commitment with the host commitment as extra data",
        arguments: try AntiExfilVectors.load().fixedVectors.cases)
    func signerCommit(_ testCase: AntiExfilVectors.Fixed.Case) throws {
        let vectors = try #require(Self.vectors)
        let key = try Self.key(vectors.fixedVectors.privateKey)
        let opening = try AntiExfil.signerCommitment(
            key: key, digest: TestHex.bytes(vectors.fixedVectors.message),
            hostCommitment: TestHex.bytes(testCase.s2cData))
        #expect(opening.compressed == TestHex.bytes(testCase.expectedS2CExfilOpening))
    }

    @Test("run_s2c_opening_test: a valid opening parses; a bad oddness byte or a point off the curve does not")
    func openingParse() throws {
        let vectors = try #require(Self.vectors)
        for valid in vectors.openingParse.valid {
            #expect((try? PublicKey(serialized: TestHex.bytes(valid)))?.compressed == TestHex.bytes(valid))
        }
        for invalid in vectors.openingParse.invalid {
            #expect((try? PublicKey(serialized: TestHex.bytes(invalid.opening))) == nil, "\(invalid.reason)")
        }
    }

    @Test("test_ecdsa_s2c_tagged_hash: the two tags")
    func tags() throws {
        let vectors = try #require(Self.vectors)
        #expect(AntiExfil.dataTag.tag == vectors.taggedHashTags.data)
        #expect(AntiExfil.pointTag.tag == vectors.taggedHashTags.point)
        // The tagged hash is SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m), computed here without TaggedHash.
        let tag = SHA256.hash(Array(vectors.taggedHashTags.data.utf8))
        let entropy = [UInt8](repeating: 7, count: 32)
        #expect(try AntiExfil.hostCommitment(entropy: entropy) == SHA256.hash(tag + tag + entropy))
    }

    @Test("test_ecdsa_anti_exfil: the five steps succeed; a tampered r, another message or other entropy fail")
    func protocolSteps() throws {
        let vectors = try #require(Self.vectors)
        let key = try Self.key(vectors.apiStrings.privateKey)
        let message = TestHex.bytes(vectors.apiStrings.message)
        let rho = TestHex.bytes(vectors.apiStrings.hostRandomness)
        let commitment = try AntiExfil.hostCommitment(entropy: rho)
        let opening = try AntiExfil.signerCommitment(key: key, digest: message, hostCommitment: commitment)
        // The retry rule: the same entropy gives the same signer commitment.
        #expect(try AntiExfil.signerCommitment(key: key, digest: message, hostCommitment: commitment) == opening)
        let signature = try AntiExfil.sign(key: key, digest: message, entropy: rho)
        #expect(signature == (try AntiExfil.sign(key: key, digest: message, entropy: rho)))
        #expect(signature.isLowS)
        #expect(
            AntiExfil.verify(
                signature, digest: message, publicKey: key.publicKey, entropy: rho, signerCommitment: opening))
        for index in 0..<32 {
            var bytes = signature.compact
            bytes[index] &+= 1
            guard let tampered = try? ECDSASignature(compact: bytes) else { continue }
            #expect(
                !AntiExfil.verify(
                    tampered, digest: message, publicKey: key.publicKey, entropy: rho, signerCommitment: opening))
        }
        let other = TestHex.bytes(vectors.apiStrings.s2cData)
        #expect(
            !AntiExfil.verify(
                signature, digest: other, publicKey: key.publicKey, entropy: rho, signerCommitment: opening))
        // s2c_sign with data that does not match the commitment: a valid signature, but not for the host's opening.
        let bad: [UInt8] = [1, 2, 3, 4] + [UInt8](repeating: 0, count: 28)
        let badSignature = try AntiExfil.sign(key: key, digest: message, entropy: bad)
        #expect(key.publicKey.verify(badSignature, digest: message))
        #expect(
            !AntiExfil.verify(
                badSignature, digest: message, publicKey: key.publicKey, entropy: rho, signerCommitment: opening))
        #expect(throws: KeyError.self) { try AntiExfil.hostCommitment(entropy: [1, 2, 3]) }
    }
}
