import Bitcoin
import BitcoinCrypto
import Foundation
import SilentPayments
import TestSupport
import Testing

/// One case of bitcoin/bips bip-0375/bip375_test_vectors.json.
struct BIP375Case: CustomTestStringConvertible, @unchecked Sendable {
    let valid: Bool
    let description: String
    let psbt: String
    let checks: [String]?
    var testDescription: String { "\(valid ? "valid" : "invalid"): \(description)" }

    static func all(_ key: String) throws -> [BIP375Case] {
        let root = try #require(try Vectors.anyJSON("silentpayments/bip375_test_vectors.json") as? [String: Any])
        let cases = try #require(root[key] as? [[String: Any]])
        return try cases.map { item in
            BIP375Case(
                valid: key == "valid", description: try #require(item["description"] as? String),
                psbt: try #require(item["psbt"] as? String), checks: item["checks"] as? [String])
        }
    }

    /// Parses and runs the case's checks (all four unless it names some); the error of the first that fails.
    func run() -> (any Error)? {
        do {
            let parsed = try PSBT(base64: psbt)
            let selected = checks.map { $0.compactMap(BIP375.Check.init(rawValue:)) } ?? BIP375.Check.allCases
            try BIP375.validate(parsed, checks: selected)
            return nil
        } catch {
            return error
        }
    }
}

@Suite("BIP375 PSBT vectors")
struct BIP375Tests {
    @Test("Every valid PSBT parses and passes its checks", arguments: try BIP375Case.all("valid"))
    func valid(_ vector: BIP375Case) {
        let error = vector.run()
        #expect(error == nil, "\(String(describing: error))")
    }

    @Test("Every invalid PSBT is refused by the parser or by its checks", arguments: try BIP375Case.all("invalid"))
    func invalid(_ vector: BIP375Case) {
        #expect(vector.run() != nil)
    }

    @Test("The vector file holds 20 valid and 22 invalid cases")
    func counts() throws {
        #expect(try BIP375Case.all("valid").count == 20)
        #expect(try BIP375Case.all("invalid").count == 22)
    }
}
