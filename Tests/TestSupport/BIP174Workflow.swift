import Foundation

/// The BIP174 workflow chain (creator → updater → signers → combiner → finalizer → extractor) of
/// Tests/Vectors/psbt/bip174_vectors.json, for the PSBT tests of BitcoinTests and DescriptorsTests.
public enum BIP174Workflow {
    public static func step(_ name: String) throws -> [String: Any] {
        guard let root = try Vectors.anyJSON("psbt/bip174_vectors.json") as? [String: Any],
            let workflow = root["workflow"] as? [String: Any], let step = workflow[name] as? [String: Any]
        else { throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "no workflow step \(name)") }
        return step
    }

    /// The result PSBT (hex) of step `name`.
    public static func resultHex(_ name: String) throws -> String {
        guard let result = try step(name)["result"] as? [String: Any], let hex = result["hex"] as? String else {
            throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "no result hex in \(name)")
        }
        return hex
    }

    /// The input PSBTs (hex) listed inline in step `name`.
    public static func inputHexes(_ name: String) throws -> [String] {
        (try step(name)["inputs"] as? [[String: Any]] ?? []).compactMap { $0["hex"] as? String }
    }

    /// The WIF keys of a signer step.
    public static func keys(_ name: String) throws -> [String] {
        (try step(name)["keys"] as? [[String: Any]] ?? []).compactMap { $0["wif"] as? String }
    }
}
