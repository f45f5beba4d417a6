import ChainCore
import Codecs
import Foundation
import Synchronization
import Testing

import struct Ethereum.EthereumAddress
import enum Ethereum.Keccak256
import struct Ethereum.UInt256

@testable import ChainBackends

/// The Ethereum JSON-RPC client against scripted node answers (raw HTTP responses, parsed by the real `HTTPClient`
/// parser): quantities are read strictly (docs/architecture.md section 10), broken and lying answers become clear
/// `ChainError`s, `eth_getLogs` ranges are split when the node limits them, batches are matched by id.
@Suite("Ethereum JSON-RPC transcripts")
struct EthereumRPCTranscriptTests {
    /// A node that answers each request body with `answer(request)` as an HTTP response; records the requests.
    final class Node: Sendable {
        let requests = Mutex<[JSONValue]>([])
        let answer: @Sendable (JSONValue) -> (Int, String)

        init(_ answer: @escaping @Sendable (JSONValue) -> (Int, String)) { self.answer = answer }

        func client(maxLogRange: UInt64 = 50_000) -> EthereumRPC {
            EthereumRPC(displayName: "eth+http://node:8545", maxLogRange: maxLogRange) {
                (body: [UInt8]) async throws(ChainError) -> HTTPResponse in
                let request = try JSONValue.parse(body)
                self.requests.withLock { $0.append(request) }
                let (status, text) = self.answer(request)
                let raw =
                    "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)"
                return try HTTPClient.parse(Array(raw.utf8))
            }
        }

        var methods: [String] { requests.withLock { $0.compactMap { $0["method"]?.string } } }
    }

    /// A JSON-RPC success answer to `request` with `result` (JSON text).
    static func ok(_ request: JSONValue, _ result: String) -> (Int, String) {
        (200, "{\"jsonrpc\":\"2.0\",\"id\":\(request["id"]?.int ?? 0),\"result\":\(result)}")
    }

    static func node(result: String) -> Node { Node { Self.ok($0, result) } }

    @Test("quantities: well-formed hex up to 2^256 - 1 is read exactly")
    func quantities() async throws {
        #expect(try await Self.node(result: "\"0x7765\"").client().chainID() == 0x7765)
        #expect(try await Self.node(result: "\"0x0\"").client().blockNumber() == 0)
        let max = try await Self.node(result: "\"0x" + String(repeating: "f", count: 64) + "\"").client()
            .balance(of: try EthereumAddress(string: "0x" + String(repeating: "11", count: 20)), at: .latest)
        #expect(max.amount == UInt256.max)
        let wei = try await Self.node(result: "\"0xde0b6b3a7640000\"").client()
            .balance(of: try EthereumAddress(string: "0x" + String(repeating: "11", count: 20)), at: .number(5))
        #expect(wei.amount == UInt256(1_000_000_000_000_000_000))
    }

    @Test(
        "malformed quantities are refused with the field named",
        arguments: [
            "\"0x\"", "\"0x01\"", "\"0X1\"", "\"12\"", "12", "null", "\"0x1g\"", "\"0xABC\"", "\" 0x1\"",
            "\"0x1" + String(repeating: "0", count: 64) + "\"",  // 2^256: above the largest quantity
        ])
    func malformedQuantity(result: String) async {
        await #expect {
            _ = try await Self.node(result: result).client().balance(
                of: try EthereumAddress(string: "0x" + String(repeating: "22", count: 20)), at: .latest)
        } throws: { error in
            guard case ChainError.invalidField(_, let field, _) = error else { return false }
            return field.hasPrefix("balance")
        }
    }

    @Test("a nonce or block number above 2^64 - 1 is refused, not truncated")
    func wideNonce() async throws {
        await #expect(throws: ChainError.self) {
            _ = try await Self.node(result: "\"0x10000000000000000\"").client().blockNumber()
        }
        // Control: 2^64 - 1 fits.
        #expect(try await Self.node(result: "\"0xffffffffffffffff\"").client().blockNumber() == UInt64.max)
    }

    @Test("HTTP 500, a JSON-RPC error, a wrong id and non-JSON are errors of their own")
    func brokenAnswers() async {
        let http500 = Node { _ in (500, "Internal Server Error") }
        await #expect(throws: ChainError.http(status: 500, body: "Internal Server Error")) {
            _ = try await http500.client().chainID()
        }
        let rpcError = Node { request in
            (
                200,
                "{\"jsonrpc\":\"2.0\",\"id\":\(request["id"]?.int ?? 0),\"error\":{\"code\":-32601,\"message\":\"nope\"}}"
            )
        }
        await #expect(throws: ChainError.server(code: -32601, message: "nope")) {
            _ = try await rpcError.client().chainID()
        }
        let wrongID = Node { _ in (200, "{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":\"0x1\"}") }
        await #expect {
            _ = try await wrongID.client().chainID()
        } throws: { error in
            if case ChainError.protocolViolation = error { return true } else { return false }
        }
        let notJSON = Node { _ in (200, "<html>") }
        await #expect {
            _ = try await notJSON.client().chainID()
        } throws: { error in
            if case ChainError.protocolViolation = error { return true } else { return false }
        }
    }

    @Test("a revert is decoded: Error(string) from data, else the node's words; other errors stay the server's")
    func reverts() throws {
        // Error(string) "balance too low", as Vyper and Solidity encode it (the devnet's token, Geth's `data`).
        let reason = Array("balance too low".utf8)
        let data =
            [0x08, 0xC3, 0x79, 0xA0] + [UInt8](repeating: 0, count: 31) + [0x20] + [UInt8](repeating: 0, count: 31)
            + [UInt8(reason.count)] + reason + [UInt8](repeating: 0, count: 32 - reason.count)
        func error(_ json: String) throws -> ChainError {
            EthereumRPC.serverError(try JSONValue.parse(Array(json.utf8)))
        }
        let hex = "0x" + Hex.encode(data)
        #expect(
            try error(#"{"code":3,"message":"execution reverted","data":"\#(hex)"}"#) == .reverted("balance too low"))
        #expect(try error(#"{"code":-32000,"message":"execution reverted: paused"}"#) == .reverted("paused"))
        #expect(try error(#"{"code":3,"message":"execution reverted: b'\\x08\\xc3y'"}"#) == .reverted(nil))
        // Panic(0x11), and data of a custom error (not decoded: no reason).
        let panic = "0x4e487b71" + String(repeating: "0", count: 62) + "11"
        #expect(
            try error(#"{"code":3,"message":"execution reverted","data":"\#(panic)"}"#)
                == .reverted("panic code 0x11 (arithmetic overflow or underflow)"))
        #expect(try error(#"{"code":3,"message":"execution reverted","data":"0xdeadbeef"}"#) == .reverted(nil))
        // The control: another error is the server's, and the message a user reads has no hex dump.
        #expect(
            try error(#"{"code":-32000,"message":"nonce too low"}"#) == .server(code: -32000, message: "nonce too low"))
        #expect(
            ChainError.reverted("balance too low").description
                == "the transaction would fail: the contract refuses it (\"balance too low\")")
    }

    @Test("checkChain refuses a node on another chain and accepts the account's")
    func chainCheck() async throws {
        let node = Self.node(result: "\"0x1\"").client()
        await #expect {
            try await node.checkChain(131_277_322_940_537)
        } throws: { error in
            if case ChainError.wrongChain(let why) = error {
                return why.contains("chain id 1 (Ethereum mainnet)") && why.contains("--chain-id 1")
            } else {
                return false
            }
        }
        try await node.checkChain(1)
    }

    static let token = "0x" + String(repeating: "ab", count: 20)
    static let topic = "0x" + Hex.encode(Keccak256.hash(Array("Transfer(address,address,uint256)".utf8)))

    static func logJSON(block: UInt64, address: String = token) -> String {
        """
        {"address":"\(address)","topics":["\(topic)"],"data":"0x","blockNumber":"\(EthHex.quantity(block))",\
        "transactionHash":"0x\(String(repeating: "0", count: 62))\(String(format: "%02x", block % 256))",\
        "logIndex":"0x0"}
        """
    }

    /// A node that refuses ranges wider than `limit` blocks with -32005 and has one log in every 7th block.
    static func rangeLimitedNode(limit: UInt64) -> Node {
        Node { request in
            let filter = request["params"]?.array?.first
            let from = UInt64(filter?["fromBlock"]?.string?.dropFirst(2) ?? "", radix: 16) ?? 0
            let to = UInt64(filter?["toBlock"]?.string?.dropFirst(2) ?? "", radix: 16) ?? 0
            if to - from + 1 > limit {
                return (
                    200,
                    "{\"jsonrpc\":\"2.0\",\"id\":\(request["id"]?.int ?? 0),\"error\":{\"code\":-32005,\"message\":\"query exceeds max block range \(limit)\"}}"
                )
            }
            let logs = (from...to).filter { $0 % 7 == 0 }.map { Self.logJSON(block: $0) }
            return Self.ok(request, "[" + logs.joined(separator: ",") + "]")
        }
    }

    @Test("eth_getLogs: a range the node refuses as too wide is split until every block is covered once")
    func logRangeSplitting() async throws {
        let node = Self.rangeLimitedNode(limit: 100)
        let filter = EthLogFilter(
            fromBlock: 0, toBlock: 1000, addresses: [try EthereumAddress(string: Self.token)],
            topics: [[Hex.decode(Self.topic) ?? []]])
        let logs = try await node.client().logs(filter)
        #expect(logs.map(\.blockNumber) == (0...1000).filter { $0 % 7 == 0 })
        // Control: without a limit, one request.
        let unlimited = Self.rangeLimitedNode(limit: 10_000)
        #expect(try await unlimited.client().logs(filter).count == logs.count)
        #expect(unlimited.methods == ["eth_getLogs"])
        #expect(node.methods.count > 10)
    }

    @Test("eth_getLogs: the client's own range cap splits before asking")
    func logRangeCap() async throws {
        let node = Self.rangeLimitedNode(limit: 10_000)
        let filter = EthLogFilter(fromBlock: 10, toBlock: 59, addresses: [], topics: [])
        _ = try await node.client(maxLogRange: 20).logs(filter)
        let ranges = node.requests.withLock { $0 }.map { request -> String in
            let f = request["params"]?.array?.first
            return "\(f?["fromBlock"]?.string ?? "")-\(f?["toBlock"]?.string ?? "")"
        }
        #expect(ranges == ["0xa-0x1d", "0x1e-0x31", "0x32-0x3b"])
    }

    @Test("eth_getLogs: a log outside the asked range or contract is a lie")
    func logOutsideFilter() async throws {
        let outside = Node { Self.ok($0, "[" + Self.logJSON(block: 500) + "]") }
        let filter = EthLogFilter(
            fromBlock: 0, toBlock: 100, addresses: [try EthereumAddress(string: Self.token)], topics: [])
        await #expect {
            _ = try await outside.client().logs(filter)
        } throws: { error in
            if case ChainError.verificationFailed = error { return true } else { return false }
        }
        let otherContract = Node {
            Self.ok($0, "[" + Self.logJSON(block: 50, address: "0x" + String(repeating: "cd", count: 20)) + "]")
        }
        await #expect(throws: ChainError.self) { _ = try await otherContract.client().logs(filter) }
        // Control: inside both.
        let inside = Node { Self.ok($0, "[" + Self.logJSON(block: 50) + "]") }
        #expect(try await inside.client().logs(filter).count == 1)
    }

    @Test("a batch answered out of order is matched by id; a node without batches gets single calls")
    func batches() async throws {
        let reversed = Node { request in
            guard let calls = request.array else { return Self.ok(request, "\"0x\"") }
            let answers = calls.reversed().map { call in
                "{\"jsonrpc\":\"2.0\",\"id\":\(call["id"]?.int ?? 0),\"result\":\"0x\(String(format: "%064x", call["id"]?.int ?? 0))\"}"
            }
            return (200, "[" + answers.joined(separator: ",") + "]")
        }
        let contract = try EthereumAddress(string: Self.token)
        let client = reversed.client()
        let results = try await client.calls(
            [EthCall(to: contract, data: [1]), EthCall(to: contract, data: [2]), EthCall(to: contract, data: [3])],
            at: .latest)
        let ids = reversed.requests.withLock { $0 }[0].array?.compactMap { $0["id"]?.int } ?? []
        #expect(results.map { Int(try! UInt256(bigEndian: $0).uint64!) } == ids)
        #expect(reversed.requests.withLock { $0.count } == 1)

        let noBatch = Node { request in
            if request.array != nil {
                return (
                    200,
                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"batch not supported\"}}"
                )
            }
            return Self.ok(request, "\"0x" + String(repeating: "00", count: 31) + "07\"")
        }
        let singles = try await noBatch.client().calls(
            [EthCall(to: contract, data: [1]), EthCall(to: contract, data: [2])], at: .latest)
        #expect(singles.count == 2)
        #expect(noBatch.methods == ["eth_call", "eth_call"])

        let missing = Node { request in
            guard let calls = request.array else { return Self.ok(request, "\"0x\"") }
            return (200, "[{\"jsonrpc\":\"2.0\",\"id\":\(calls[0]["id"]?.int ?? 0),\"result\":\"0x\"}]")
        }
        await #expect(throws: ChainError.self) {
            _ = try await missing.client().calls(
                [EthCall(to: contract, data: [1]), EthCall(to: contract, data: [2])], at: .latest)
        }
    }

    @Test("receipts: status, gas and price read; a receipt for another hash is a lie; null is pending")
    func receipts() async throws {
        let hash = [UInt8](repeating: 0x42, count: 32)
        func receipt(hash: String, status: String) -> String {
            """
            {"transactionHash":"\(hash)","blockNumber":"0x5","status":"\(status)","gasUsed":"0x5208",\
            "effectiveGasPrice":"0x3b9aca07","logs":[]}
            """
        }
        let failed = Self.node(result: receipt(hash: EthHex.data(hash), status: "0x0"))
        let parsed = try #require(try await failed.client().receipt(hash: hash))
        #expect(!parsed.succeeded)
        #expect(parsed.gasUsed == 21000)
        #expect(parsed.effectiveGasPrice == UInt256(1_000_000_007))
        let other = Self.node(result: receipt(hash: EthHex.data([UInt8](repeating: 0x43, count: 32)), status: "0x1"))
        await #expect(throws: ChainError.self) { _ = try await other.client().receipt(hash: hash) }
        let badStatus = Self.node(result: receipt(hash: EthHex.data(hash), status: "0x2"))
        await #expect(throws: ChainError.self) { _ = try await badStatus.client().receipt(hash: hash) }
        #expect(try await Self.node(result: "null").client().receipt(hash: hash) == nil)
    }

    @Test("fee history: counts must agree; the next block's base fee is the last")
    func feeHistory() async throws {
        let good = Self.node(
            result: """
                {"oldestBlock":"0x1","baseFeePerGas":["0x3b9aca00","0x3b9aca00","0x37e11d60"],\
                "gasUsedRatio":[0.5,0],"reward":[["0x3b9aca00"],["0x0"]]}
                """)
        let history = try await good.client().feeHistory(blocks: 2, percentiles: [50])
        #expect(history.baseFeePerGas.last == UInt256(0x37e1_1d60))
        #expect(history.reward.count == 2)
        let short = Self.node(
            result:
                "{\"oldestBlock\":\"0x1\",\"baseFeePerGas\":[\"0x1\"],\"gasUsedRatio\":[0.5,0.1],\"reward\":[[\"0x1\"],[\"0x1\"]]}"
        )
        await #expect(throws: ChainError.self) { _ = try await short.client().feeHistory(blocks: 2, percentiles: [50]) }
        let ratio = Self.node(
            result:
                "{\"oldestBlock\":\"0x1\",\"baseFeePerGas\":[\"0x1\",\"0x1\"],\"gasUsedRatio\":[7],\"reward\":[[\"0x1\"]]}"
        )
        await #expect(throws: ChainError.self) { _ = try await ratio.client().feeHistory(blocks: 1, percentiles: [50]) }
    }

    @Test("a rejected raw transaction is ChainError.rejected with the node's reason; the hash must be 32 bytes")
    func sendRaw() async throws {
        let rejecting = Node { request in
            (
                200,
                "{\"jsonrpc\":\"2.0\",\"id\":\(request["id"]?.int ?? 0),\"error\":{\"code\":-32000,\"message\":\"nonce too low\"}}"
            )
        }
        await #expect(throws: ChainError.rejected("nonce too low")) {
            _ = try await rejecting.client().sendRawTransaction([2])
        }
        await #expect(throws: ChainError.self) {
            _ = try await Self.node(result: "\"0x1234\"").client().sendRawTransaction([2])
        }
        let hash = "0x" + String(repeating: "ab", count: 32)
        #expect(try await Self.node(result: "\"\(hash)\"").client().sendRawTransaction([2]) == Hex.decode(hash))
    }

    @Test("eth+http(s) node URLs")
    func urls() throws {
        let plain = try EthereumNodeURL(string: "eth+http://127.0.0.1:8545")
        #expect(plain.port == 8545 && plain.tls == nil && plain.path == "")
        let secure = try EthereumNodeURL(string: "eth+https://rpc.example.org/v3/key")
        #expect(secure.port == 443 && secure.tls != nil && secure.path == "/v3/key")
        #expect(throws: ChainError.self) { try EthereumNodeURL(string: "http://127.0.0.1:8545") }
        #expect(throws: ChainError.self) { try EthereumNodeURL(string: "eth+http://127.0.0.1:99999") }
        #expect(EthereumNodeURL.isEthereum("eth+https://x") && !EthereumNodeURL.isEthereum("electrum://x:1"))
    }
}
