import Foundation
import TestSupport
import Testing

/// The PSBT vector files of Tests/Vectors/psbt, decoded for the suites.
enum PSBTVectors {
    /// A BIP vector case: a description and the PSBT as hex (the base64 form is the same bytes).
    struct BIPCase: Decodable, CustomTestStringConvertible, Sendable {
        let description: String
        let hex: String
        let base64: String
        let bipIndex: Int?
        var testDescription: String { "#\(bipIndex ?? -1) \(description)" }
    }

    struct BIPFile: Decodable {
        let invalid: [BIPCase]
        let valid: [BIPCase]
    }

    struct BIP174File: Decodable {
        let invalid: [BIPCase]
        let valid: [BIPCase]
        let failsSignerChecks: [BIPCase]
    }

    struct BIP370File: Decodable {
        struct Timelock: Decodable, Sendable, CustomTestStringConvertible {
            let description: String
            let hex: String
            let expectedLocktime: UInt32?
            var testDescription: String { description }
        }
        let invalid: [BIPCase]
        let valid: [BIPCase]
        let timelock: [Timelock]
    }

    struct BIP373File: Decodable {
        struct Variant: Decodable, Sendable {
            let description: String?
            var variant: String? = nil
            let hex: String?
            let base64: String?
        }
        /// A valid case: several variants, or a single PSBT given directly.
        struct ValidCase: Decodable, Sendable, CustomTestStringConvertible {
            let description: String
            let variants: [Variant]?
            let hex: String?
            let base64: String?
            var all: [Variant] { variants ?? [Variant(description: description, hex: hex, base64: base64)] }
            var testDescription: String { description }
        }
        let valid: [ValidCase]
        let invalid: [BIPCase]
    }

    static func bip174() throws -> BIP174File { try Vectors.json("psbt/bip174_vectors.json") }
    static func bip370() throws -> BIP370File { try Vectors.json("psbt/bip370_vectors.json") }
    static func bip371() throws -> BIPFile { try Vectors.json("psbt/bip371_vectors.json") }
    static func bip373() throws -> BIP373File { try Vectors.json("psbt/bip373_vectors.json") }

    /// Bitcoin Core's test/functional/data/rpc_psbt.json.
    struct CoreFile: Sendable {
        let invalid: [String]
        let invalidWithMessage: [(psbt: String, message: String)]
        let valid: [String]
        let creator: [[String: any Sendable]]
        let signer: [(privkeys: [String], psbt: String, result: String)]
        let combiner: [(combine: [String], result: String)]
        let finalizer: [(finalize: String, result: String)]
        let extractor: [(extract: String, result: String)]
    }

    static func core() throws -> CoreFile {
        guard let root = try Vectors.anyJSON("psbt/bitcoin_core_rpc_psbt.json") as? [String: Any] else {
            throw Vectors.VectorsError.malformed(path: "rpc_psbt.json", detail: "not an object")
        }
        func list(_ key: String) -> [Any] { root[key] as? [Any] ?? [] }
        return CoreFile(
            invalid: list("invalid").compactMap { $0 as? String },
            invalidWithMessage: list("invalid_with_msg").compactMap { item in
                guard let pair = item as? [String], pair.count == 2 else { return nil }
                return (pair[0], pair[1])
            },
            valid: list("valid").compactMap { $0 as? String },
            creator: [],
            signer: list("signer").compactMap { item in
                guard let dict = item as? [String: Any], let keys = dict["privkeys"] as? [String],
                    let psbt = dict["psbt"] as? String, let result = dict["result"] as? String
                else { return nil }
                return (keys, psbt, result)
            },
            combiner: list("combiner").compactMap { item in
                guard let dict = item as? [String: Any], let combine = dict["combine"] as? [String],
                    let result = dict["result"] as? String
                else { return nil }
                return (combine, result)
            },
            finalizer: list("finalizer").compactMap { item in
                guard let dict = item as? [String: Any], let psbt = dict["finalize"] as? String,
                    let result = dict["result"] as? String
                else { return nil }
                return (psbt, result)
            },
            extractor: list("extractor").compactMap { item in
                guard let dict = item as? [String: Any], let psbt = dict["extract"] as? String,
                    let result = dict["result"] as? String
                else { return nil }
                return (psbt, result)
            })
    }
}
