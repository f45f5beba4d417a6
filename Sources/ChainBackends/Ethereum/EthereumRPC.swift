import ChainCore
import Codecs
import Foundation
import Synchronization

import struct Ethereum.EthereumAddress
import enum Ethereum.RevertReason
import struct Ethereum.UInt256
import struct Ethereum.Wei

/// An Ethereum node's JSON-RPC over HTTP(S) (docs/architecture.md section 10).
///
/// The transport, TLS and SOCKS proxy of
/// the Bitcoin backends (`HTTPClient`), one POST per call or per batch, every answer parsed strictly
/// (`EthReplyReader`). `eth_getLogs` ranges are split when the node limits them.
public final class EthereumRPC: EthereumNode, Sendable {
    /// Sends one request body and returns the HTTP response (the network, or a transcript in tests).
    package typealias Transport = @Sendable ([UInt8]) async throws(ChainError) -> HTTPResponse

    private let transport: Transport
    public let displayName: String
    private let reader: EthReplyReader
    private let nextID = Mutex(0)
    /// Whether the node answered a batch with an array (nil: not tried yet).
    private let batching = Mutex<Bool?>(nil)
    /// The widest block range asked of `eth_getLogs` at once; halved on the node's range-limit errors.
    public let maxLogRange: UInt64

    /// A client of `http(s)://host:port/path`.
    public convenience init(
        host: String, port: Int, path: String, tls: NodeURL.TLSOptions?, timeout: Int, proxy: SOCKSProxy? = nil,
        maxLogRange: UInt64 = 50_000
    ) {
        let client = HTTPClient(host: host, port: port, tls: tls, timeout: timeout, proxy: proxy)
        let target = path.isEmpty ? "/" : path
        self.init(
            displayName: "eth+\(tls == nil ? "http" : "https")://\(host):\(port)\(path)", maxLogRange: maxLogRange
        ) { (body: [UInt8]) async throws(ChainError) -> HTTPResponse in
            try await client.request(
                method: "POST", path: target, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    /// A client over `transport`.
    package init(displayName: String, maxLogRange: UInt64 = 50_000, transport: @escaping Transport) {
        self.displayName = displayName
        self.transport = transport
        self.reader = EthReplyReader(server: displayName)
        self.maxLogRange = max(1, maxLogRange)
    }

    private func takeID() -> Int {
        nextID.withLock {
            $0 += 1
            return $0
        }
    }

    private func post(_ body: JSONValue) async throws(ChainError) -> JSONValue {
        let response = try await transport(body.serialized())
        guard (200..<300).contains(response.status) else {
            // A node's JSON-RPC error may come with a 4xx/5xx status; report the error object when there is one.
            if let value = try? JSONValue.parse(response.body), let error = value["error"], !error.isNull {
                throw Self.serverError(error)
            }
            throw .http(status: response.status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
        return try JSONValue.parse(response.body)
    }

    /// The node's error object as a `ChainError`: a revert (code 3, or a message saying so, with the revert data
    /// under `data` as Geth gives it) becomes `.reverted` with the decoded `Error(string)` reason; any other error
    /// `.server`.
    static func serverError(_ error: JSONValue) -> ChainError {
        let code = error["code"]?.int ?? 0
        let message = error["message"]?.string ?? "\(error)"
        let reverted = code == 3 || message.hasPrefix("execution reverted")
        guard reverted else { return .server(code: code, message: message) }
        if let hex = error["data"]?.string, let data = Hex.decode(hex), let reason = RevertReason.decode(data) {
            return .reverted(reason)
        }
        // No data, or data that is not Error(string): the node's own words after "execution reverted", short.
        var rest = message.hasPrefix("execution reverted") ? String(message.dropFirst("execution reverted".count)) : ""
        rest = rest.trimmingCharacters(in: CharacterSet(charactersIn: ": "))
        if rest.isEmpty || rest.hasPrefix("b'") || rest.utf8.count > 200 { return .reverted(nil) }
        return .reverted(rest)
    }

    /// One call; the node's error object becomes `ChainError.server`.
    public func call(_ method: String, _ params: [JSONValue] = []) async throws(ChainError) -> JSONValue {
        let id = takeID()
        let reply = try await post(
            .object(["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method), "params": .array(params)]))
        return try result(of: reply, id: id, method: method)
    }

    private func result(of reply: JSONValue, id: Int, method: String) throws(ChainError) -> JSONValue {
        guard reply.object != nil else { throw .protocolViolation("\(method): the answer is not a JSON object") }
        if let error = reply["error"], !error.isNull { throw Self.serverError(error) }
        guard reply["id"]?.int == id else {
            throw .protocolViolation("\(method): the answer has id \(reply["id"].map { "\($0)" } ?? "none"), not \(id)")
        }
        guard let result = reply["result"] else { throw .protocolViolation("\(method): the answer has no result") }
        return result
    }

    /// Several calls: one batch when the node takes batches, else one after the other.
    ///
    /// Each answer is matched to
    /// its request by id; a missing or duplicated answer is a protocol violation.
    public func batch(_ requests: [RPCRequest]) async throws(ChainError) -> [Result<JSONValue, ChainError>] {
        if requests.isEmpty { return [] }
        if batching.withLock({ $0 }) != false, requests.count > 1 {
            let ids = requests.map { _ in takeID() }
            let body: JSONValue = .array(
                zip(ids, requests).map { id, request in
                    .object([
                        "jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(request.method),
                        "params": .array(request.params),
                    ])
                })
            let reply: JSONValue
            do throws(ChainError) { reply = try await post(body) } catch {
                if case .server = error {
                    batching.withLock { $0 = false }
                    return try await oneByOne(requests)
                }
                throw error
            }
            guard let answers = reply.array else {
                if let error = reply["error"], !error.isNull {
                    batching.withLock { $0 = false }
                    return try await oneByOne(requests)
                }
                throw .protocolViolation("a batch was answered with neither an array nor an error")
            }
            batching.withLock { $0 = true }
            var byID: [Int: JSONValue] = [:]
            for answer in answers {
                guard let id = answer["id"]?.int, ids.contains(id), byID[id] == nil else {
                    throw .protocolViolation("a batch answer has an unknown or repeated id")
                }
                byID[id] = answer
            }
            var out: [Result<JSONValue, ChainError>] = []
            for (id, request) in zip(ids, requests) {
                guard let answer = byID[id] else {
                    throw .protocolViolation("the batch answer lacks \(request.method) (id \(id))")
                }
                do throws(ChainError) {
                    out.append(.success(try result(of: answer, id: id, method: request.method)))
                } catch {
                    out.append(.failure(error))
                }
            }
            return out
        }
        return try await oneByOne(requests)
    }

    private func oneByOne(_ requests: [RPCRequest]) async throws(ChainError) -> [Result<JSONValue, ChainError>] {
        var out: [Result<JSONValue, ChainError>] = []
        for request in requests {
            do throws(ChainError) { out.append(.success(try await call(request.method, request.params))) } catch {
                if case .server = error { out.append(.failure(error)) } else { throw error }
            }
        }
        return out
    }

    // MARK: EthereumNode

    public func chainID() async throws(ChainError) -> UInt64 {
        try reader.uint64(try await call("eth_chainId"), "eth_chainId")
    }

    public func blockNumber() async throws(ChainError) -> UInt64 {
        try reader.uint64(try await call("eth_blockNumber"), "eth_blockNumber")
    }

    public func balance(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError) -> Wei {
        Wei(
            try reader.quantity(
                try await call("eth_getBalance", [.string(address.checksummed), block.json]), "balance"))
    }

    public func transactionCount(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError)
        -> UInt64
    {
        try reader.uint64(
            try await call("eth_getTransactionCount", [.string(address.checksummed), block.json]), "nonce")
    }

    private static func callObject(_ call: EthCall) -> JSONValue {
        .object(["to": .string(call.to.checksummed), "data": .string(EthHex.data(call.data))])
    }

    public func call(_ call: EthCall, at block: EthBlockTag) async throws(ChainError) -> [UInt8] {
        try reader.data(try await self.call("eth_call", [Self.callObject(call), block.json]), "eth_call result")
    }

    public func calls(_ calls: [EthCall], at block: EthBlockTag) async throws(ChainError) -> [[UInt8]] {
        let answers = try await batch(calls.map { RPCRequest("eth_call", [Self.callObject($0), block.json]) })
        var out: [[UInt8]] = []
        for answer in answers {
            switch answer {
            case .success(let value): out.append(try reader.data(value, "eth_call result"))
            case .failure(let error): throw error
            }
        }
        return out
    }

    public func estimateGas(from: EthereumAddress, to: EthereumAddress, value: Wei, data: [UInt8])
        async throws(ChainError) -> UInt64
    {
        let object: JSONValue = .object([
            "from": .string(from.checksummed), "to": .string(to.checksummed),
            "value": .string(EthHex.quantity(value.amount)), "data": .string(EthHex.data(data)),
        ])
        return try reader.uint64(try await call("eth_estimateGas", [object]), "eth_estimateGas")
    }

    public func feeHistory(blocks: Int, percentiles: [Double]) async throws(ChainError) -> EthFeeHistory {
        let answer = try reader.object(
            try await call(
                "eth_feeHistory",
                [.string(EthHex.quantity(UInt64(blocks))), "latest", .array(percentiles.map { .number($0) })]),
            "eth_feeHistory")
        let oldest = try reader.uint64(answer["oldestBlock"], "feeHistory oldestBlock")
        var baseFees: [UInt256] = []
        for value in try reader.array(answer["baseFeePerGas"], "feeHistory baseFeePerGas") {
            baseFees.append(try reader.quantity(value, "feeHistory baseFeePerGas"))
        }
        var ratios: [Double] = []
        for value in try reader.array(answer["gasUsedRatio"], "feeHistory gasUsedRatio") {
            guard let ratio = value.double, ratio.isFinite, (0...1).contains(ratio) else {
                throw reader.invalid("feeHistory gasUsedRatio", value)
            }
            ratios.append(ratio)
        }
        var rewards: [[UInt256]] = []
        if !percentiles.isEmpty {
            for row in try reader.array(answer["reward"], "feeHistory reward") {
                var parsed: [UInt256] = []
                for value in try reader.array(row, "feeHistory reward") {
                    parsed.append(try reader.quantity(value, "feeHistory reward"))
                }
                guard parsed.count == percentiles.count else { throw reader.invalid("feeHistory reward", row) }
                rewards.append(parsed)
            }
        }
        guard !baseFees.isEmpty, baseFees.count == ratios.count + 1,
            percentiles.isEmpty || rewards.count == ratios.count
        else {
            throw .protocolViolation("eth_feeHistory: \(baseFees.count) base fees for \(ratios.count) blocks")
        }
        return EthFeeHistory(oldestBlock: oldest, baseFeePerGas: baseFees, gasUsedRatio: ratios, reward: rewards)
    }

    public func maxPriorityFeePerGas() async throws(ChainError) -> UInt256 {
        try reader.quantity(try await call("eth_maxPriorityFeePerGas"), "eth_maxPriorityFeePerGas")
    }

    public func sendRawTransaction(_ raw: [UInt8]) async throws(ChainError) -> [UInt8] {
        let answer: JSONValue
        do throws(ChainError) { answer = try await call("eth_sendRawTransaction", [.string(EthHex.data(raw))]) } catch {
            if case .server(_, let message) = error { throw .rejected(message) }
            throw error
        }
        return try reader.data(answer, "transaction hash", length: 32)
    }

    public func receipt(hash: [UInt8]) async throws(ChainError) -> EthReceipt? {
        let answer = try await call("eth_getTransactionReceipt", [.string(EthHex.data(hash))])
        if answer.isNull { return nil }
        let object = try reader.object(answer, "receipt")
        let status = try reader.uint64(object["status"], "receipt status")
        guard status <= 1 else { throw reader.invalid("receipt status", object["status"]) }
        let receiptHash = try reader.data(object["transactionHash"], "receipt transactionHash", length: 32)
        guard receiptHash == hash else {
            throw .verificationFailed("the receipt asked for \(EthHex.data(hash)) is for \(EthHex.data(receiptHash))")
        }
        var logs: [EthLog] = []
        for value in try reader.array(object["logs"], "receipt logs") { logs.append(try log(value)) }
        return EthReceipt(
            transactionHash: receiptHash, blockNumber: try reader.uint64(object["blockNumber"], "receipt blockNumber"),
            succeeded: status == 1, gasUsed: try reader.uint64(object["gasUsed"], "receipt gasUsed"),
            effectiveGasPrice: try reader.quantity(object["effectiveGasPrice"], "receipt effectiveGasPrice"),
            logs: logs)
    }

    public func transaction(hash: [UInt8]) async throws(ChainError) -> EthTransactionInfo? {
        let answer = try await call("eth_getTransactionByHash", [.string(EthHex.data(hash))])
        if answer.isNull { return nil }
        let object = try reader.object(answer, "transaction")
        let block: UInt64? =
            (object["blockNumber"]?.isNull ?? true) ? nil : try reader.uint64(object["blockNumber"], "blockNumber")
        return EthTransactionInfo(
            hash: try reader.data(object["hash"], "transaction hash", length: 32),
            from: try reader.address(object["from"], "transaction from"),
            nonce: try reader.uint64(object["nonce"], "transaction nonce"), blockNumber: block)
    }

    func log(_ value: JSONValue) throws(ChainError) -> EthLog {
        let object = try reader.object(value, "log")
        var topics: [[UInt8]] = []
        for topic in try reader.array(object["topics"], "log topics") {
            topics.append(try reader.data(topic, "log topic", length: 32))
        }
        return EthLog(
            address: try reader.address(object["address"], "log address"), topics: topics,
            data: try reader.data(object["data"], "log data"),
            blockNumber: try reader.uint64(object["blockNumber"], "log blockNumber"),
            transactionHash: try reader.data(object["transactionHash"], "log transactionHash", length: 32),
            logIndex: try reader.uint64(object["logIndex"], "log logIndex"))
    }

    /// Whether `error` is a node's refusal of a too-wide `eth_getLogs` range (-32005 as Infura and the devnet
    /// answer, or a message about the range or the result size as Geth, Alchemy and others word it).
    static func isRangeLimit(_ error: ChainError) -> Bool {
        guard case .server(let code, let message) = error else { return false }
        if code == -32005 { return true }
        let lower = message.lowercased()
        return ["block range", "range limit", "too many", "limit exceeded", "query returned more than"].contains {
            lower.contains($0)
        }
    }

    public func logs(_ filter: EthLogFilter) async throws(ChainError) -> [EthLog] {
        guard filter.fromBlock <= filter.toBlock else { return [] }
        var out: [EthLog] = []
        var start = filter.fromBlock
        var span = maxLogRange
        while start <= filter.toBlock {
            let end = min(filter.toBlock, start + min(span, filter.toBlock - start + 1) - 1)
            var piece = filter
            piece.fromBlock = start
            piece.toBlock = end
            do throws(ChainError) {
                out += try await logsOnce(piece)
                if end == filter.toBlock { break }
                start = end + 1
            } catch {
                guard Self.isRangeLimit(error), end > start else { throw error }
                span = max(1, (end - start + 1) / 2)
            }
        }
        return out
    }

    private func logsOnce(_ filter: EthLogFilter) async throws(ChainError) -> [EthLog] {
        var object: [String: JSONValue] = [
            "fromBlock": .string(EthHex.quantity(filter.fromBlock)),
            "toBlock": .string(EthHex.quantity(filter.toBlock)),
        ]
        if !filter.addresses.isEmpty { object["address"] = .array(filter.addresses.map { .string($0.checksummed) }) }
        if !filter.topics.isEmpty {
            object["topics"] = .array(
                filter.topics.map { accepted in
                    accepted.map { .array($0.map { .string(EthHex.data($0)) }) } ?? .null
                })
        }
        var logs: [EthLog] = []
        for value in try reader.array(try await call("eth_getLogs", [.object(object)]), "eth_getLogs") {
            let entry = try log(value)
            guard filter.matches(entry) else {
                throw .verificationFailed(
                    "eth_getLogs answered a log outside the filter (block \(entry.blockNumber), \(entry.address))")
            }
            logs.append(entry)
        }
        return logs
    }
}
