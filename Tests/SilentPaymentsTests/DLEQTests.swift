import BitcoinCrypto
import TestSupport
import Testing

/// One row of bitcoin/bips bip-0374/test_vectors_generate_proof.csv or test_vectors_verify_proof.csv.
struct DLEQRow: CustomTestStringConvertible, Sendable {
    let fields: [String]
    var testDescription: String { "#\(fields[0]) \(fields.last ?? "")" }

    static func rows(_ file: String) throws -> [DLEQRow] {
        try Vectors.text("silentpayments/\(file)").split(whereSeparator: \.isNewline).dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 8 else { throw Vectors.VectorsError.malformed(path: file, detail: String(line)) }
            return DLEQRow(fields: fields)
        }
    }

    static func point(_ hex: String) -> PublicKey? {
        hex == "INFINITY" ? nil : try? PublicKey(serialized: TestHex.bytes(hex))
    }
}

@Suite("BIP374 DLEQ proof vectors")
struct DLEQTests {
    @Test(
        "Every generate_proof row: the listed proof, or no proof where the BIP fails",
        arguments: try DLEQRow.rows("test_vectors_generate_proof.csv"))
    func generate(_ row: DLEQRow) throws {
        // index, point_G, scalar_a, point_B, auxrand_r, message, result_proof, comment
        let f = row.fields
        let message = f[5].isEmpty ? nil : TestHex.bytes(f[5])
        let key = try? PrivateKey(secret: SecretBytes(copying: TestHex.bytes(f[2])))
        let g = try #require(DLEQRow.point(f[1]))
        var proof: [UInt8]?
        if let key, let b = DLEQRow.point(f[3]) {
            proof = DLEQ.generateProof(
                privateKey: key, point: b, auxiliaryRandomness: TestHex.bytes(f[4]), generatorPoint: g, message: message
            )
        }
        if f[6] == "INVALID" {
            #expect(proof == nil)
        } else {
            #expect(proof == TestHex.bytes(f[6]))
        }
    }

    @Test(
        "Every verify_proof row gives the listed result", arguments: try DLEQRow.rows("test_vectors_verify_proof.csv"))
    func verify(_ row: DLEQRow) throws {
        // index, point_G, point_A, point_B, point_C, proof, message, result_success, comment
        let f = row.fields
        let message = f[6].isEmpty ? nil : TestHex.bytes(f[6])
        var result = false
        if let g = DLEQRow.point(f[1]), let a = DLEQRow.point(f[2]), let b = DLEQRow.point(f[3]),
            let c = DLEQRow.point(f[4])
        {
            result = DLEQ.verifyProof(a: a, b: b, c: c, proof: TestHex.bytes(f[5]), generatorPoint: g, message: message)
        }
        #expect(result == (f[7] == "TRUE"))
    }

    @Test("A fresh proof verifies; the same proof for another share (a different C) does not")
    func roundTripAndControl() throws {
        let a = PrivateKey.random()
        let b = PrivateKey.random().publicKey
        let proof = try #require(
            DLEQ.generateProof(privateKey: a, point: b, auxiliaryRandomness: [UInt8](repeating: 7, count: 32)))
        let c = try b.multiplied(by: a)
        #expect(DLEQ.verifyProof(a: a.publicKey, b: b, c: c, proof: proof))
        let wrong = try c.adding(tweak: [UInt8](repeating: 0, count: 31) + [1])
        #expect(!DLEQ.verifyProof(a: a.publicKey, b: b, c: wrong, proof: proof))
    }
}
