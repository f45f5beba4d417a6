// FuzzCore: bytes as a Bitcoin Core JSON-RPC reply ({"result": …, "error": …, "id": …}) through the field checks the
// Core client applies to getblockchaininfo, estimatesmartfee, scantxoutset and listsinceblock. Any trap is a bug.
import ChainCore
import Codecs

extension FuzzTargets {
    /// One input of FuzzCore.
    public static func core(_ bytes: [UInt8]) {
        guard let reply = try? JSONValue.parse(bytes) else { return }
        let checker = ReplyChecker(server: "bitcoind://fuzz:8332")
        _ = reply["error"]?["code"]?.int
        let result = reply["result"] ?? reply
        _ = try? checker.height(result["blocks"], "getblockchaininfo blocks")
        if let rate = result["feerate"] {
            _ = try? checker.feeRate(rate, "estimatesmartfee feerate", satsPerKVBPerUnit: 100_000_000)
        }
        for coin in result["unspents"]?.array ?? [] {
            _ = try? checker.vout(coin["vout"], "scantxoutset vout")
            _ = try? checker.height(coin["height"], "scantxoutset height")
        }
        for entry in result["transactions"]?.array ?? [] {
            _ = try? checker.int(
                entry["confirmations"], "listsinceblock confirmations",
                in: -ReplyChecker.maxHeight...ReplyChecker.maxHeight)
            _ = try? checker.height(entry["blockheight"], "listsinceblock blockheight")
        }
        precondition((try? JSONValue.parse(reply.serialized())) == reply, "JSON round trip changed the value")
    }
}
