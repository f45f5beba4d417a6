// FuzzEsplora: bytes as an HTTP response from an Esplora server (status line, headers, Content-Length or chunked
// body), its body as JSON, and that JSON through the client's fee-estimate table and field checks. Any trap is a bug.
import Bitcoin
import ChainBackends
import ChainCore
import Codecs

extension FuzzTargets {
    /// One input of FuzzEsplora.
    public static func esplora(_ bytes: [UInt8]) {
        let body = (try? HTTPClient.parse(bytes))?.body ?? bytes
        guard let json = try? JSONValue.parse(body) else { return }
        let checker = ReplyChecker(server: "esplora+https://fuzz")
        for target in [1, 6, 1008] {
            _ = try? EsploraClient.feeRate(estimates: json, targetBlocks: target, checker: checker)
        }
        for item in json.array ?? [json] {
            _ = try? checker.height(item["status"]?["block_height"], "status.block_height")
            _ = try? checker.count(item["pos"], "merkle-proof pos", limit: (1 << 30) - 1)
            if let branch = item["merkle"]?.array?.compactMap(\.string) {
                _ = try? MerkleProof(position: 0, displayHex: branch)
            }
        }
        // Whatever parses re-serializes to JSON that parses to the same value.
        precondition((try? JSONValue.parse(json.serialized())) == json, "JSON round trip changed the value")
    }
}
