import BitcoinCrypto
import TestSupport
import Testing

/// bitcoin/bips bip-0340/test-vectors.csv (Tests/Vectors/schnorr/bip340_test_vectors.csv): every row.
struct BIP340Vector: CustomTestStringConvertible, Sendable {
    let index: String
    let secretKey: String
    let publicKey: String
    let auxRand: String
    let message: String
    let signature: String
    let result: Bool
    let comment: String
    var testDescription: String { "#\(index) \(comment)" }

    static func all() throws -> [BIP340Vector] {
        let lines = try Vectors.text("schnorr/bip340_test_vectors.csv").split(whereSeparator: \.isNewline).dropFirst()
        return try lines.map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7 else {
                throw Vectors.VectorsError.malformed(path: "bip340_test_vectors.csv", detail: String(line))
            }
            return BIP340Vector(
                index: fields[0], secretKey: fields[1], publicKey: fields[2], auxRand: fields[3],
                message: fields[4], signature: fields[5], result: fields[6] == "TRUE",
                comment: fields.dropFirst(7).joined(separator: ","))
        }
    }
}

@Suite("BIP340 Schnorr test vectors")
struct BIP340Tests {
    @Test(
        "Signing with the given aux rand gives the listed signature; verification gives the listed result",
        arguments: try BIP340Vector.all())
    func vector(_ vector: BIP340Vector) throws {
        let message = TestHex.bytes(vector.message)
        let signature = try SchnorrSignature(serialized: TestHex.bytes(vector.signature))
        if !vector.secretKey.isEmpty {
            let key = try PrivateKey(secret: SecretBytes(copying: TestHex.bytes(vector.secretKey)))
            #expect(key.xOnlyPublicKey.bytes == TestHex.bytes(vector.publicKey))
            let ours = try key.signSchnorr(message: message, auxiliaryRandomness: TestHex.bytes(vector.auxRand))
            #expect(ours == signature)
        }
        let verified: Bool
        do {
            let key = try XOnlyPublicKey(serialized: TestHex.bytes(vector.publicKey))
            verified = key.verify(signature, message: message)
        } catch {
            // A public key that is not on the curve can only appear in a failing row.
            #expect(error == .notOnCurve)
            verified = false
        }
        #expect(verified == vector.result)
    }
}

@Suite("x-only keys and key pairs made once (issue 19)")
struct XOnlyKeyReuseTests {
    /// BIP340 vector 5's public key, which its comment says is not on the curve.
    static func offCurveKey() throws -> [UInt8] {
        let row = try #require(BIP340Vector.all().first { $0.comment.contains("not on the curve") })
        return TestHex.bytes(row.publicKey)
    }

    @Test("An x off the curve is refused every time, before and after valid keys fill the remembered set past its size")
    func offCurveRefusedEveryTime() throws {
        let offCurve = try Self.offCurveKey()
        for _ in 0..<3 {
            #expect(throws: KeyError.notOnCurve) { try XOnlyPublicKey(serialized: offCurve) }
        }
        // Control: the vectors' valid keys parse, every time.
        let valid = try BIP340Vector.all().filter { $0.result }.map { TestHex.bytes($0.publicKey) }
        #expect(!valid.isEmpty)
        for key in valid + valid { #expect(try XOnlyPublicKey(serialized: key).bytes == key) }
        // More distinct valid keys than the set holds (it empties itself), then both kinds again.
        let step = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0, count: 31) + [1])).publicKey
        var point = step
        for _ in 0..<(8_192 + 100) {
            point = try point.adding(tweak: [UInt8](repeating: 0, count: 31) + [1])
            let key = point.xOnly.key.bytes
            #expect(try XOnlyPublicKey(serialized: key).bytes == key)
        }
        #expect(throws: KeyError.notOnCurve) { try XOnlyPublicKey(serialized: offCurve) }
        for key in valid { #expect(try XOnlyPublicKey(serialized: key).bytes == key) }
    }

    @Test("Compressed keys: an x off the curve is refused every time, valid keys parse to the same point every time")
    func compressedKeysRemembered() throws {
        let offCurve = try Self.offCurveKey()
        for prefix: UInt8 in [0x02, 0x03] {
            for _ in 0..<3 {
                #expect(throws: KeyError.notOnCurve) { try PublicKey(serialized: [prefix] + offCurve) }
            }
        }
        // Control and fill: more distinct valid keys than the map holds, each parsed twice to the same key.
        var point = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0, count: 31) + [1])).publicKey
        var first: [UInt8] = []
        for index in 0..<(8_192 + 100) {
            point = try point.adding(tweak: [UInt8](repeating: 0, count: 31) + [1])
            if index == 0 { first = point.compressed }
            #expect(try PublicKey(serialized: point.compressed) == point)
            #expect(try PublicKey(serialized: point.compressed).uncompressed == point.uncompressed)
        }
        #expect(try PublicKey(serialized: first).compressed == first)
        #expect(throws: KeyError.notOnCurve) { try PublicKey(serialized: [0x02] + offCurve) }
    }

    @Test("A key's own key pair signs and tweaks as a pair made from its secret; a negated key (no pair kept) too")
    func keyPairMadeOnce() throws {
        let message = SHA256.hash(Array("airlock key pair".utf8))
        let aux = [UInt8](repeating: 7, count: 32)
        let key = try PrivateKey(secret: SecretBytes(copying: (1...32).map { UInt8($0) }))
        for candidate in [key, key.negated()] {
            let fromKey = try TaprootKeyPair(internalKey: candidate, merkleRoot: nil)
            let fromSecret = try TaprootKeyPair(internalSecret: candidate.secret, merkleRoot: nil)
            #expect(fromKey.outputKey == fromSecret.outputKey)
            let signature = try fromKey.signSchnorr(message: message, auxiliaryRandomness: aux)
            #expect(signature == (try fromSecret.signSchnorr(message: message, auxiliaryRandomness: aux)))
            #expect(fromKey.outputKey.verify(signature, message: message))
            let plain = try candidate.signSchnorr(message: message, auxiliaryRandomness: aux)
            #expect(candidate.xOnlyPublicKey.verify(plain, message: message))
            // Attack: a signature under the pair does not verify under the untweaked key, nor for another message.
            #expect(!candidate.xOnlyPublicKey.verify(signature, message: message))
            #expect(!fromKey.outputKey.verify(signature, message: SHA256.hash(Array("other".utf8))))
        }
    }
}
