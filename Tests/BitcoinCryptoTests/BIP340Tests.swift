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
