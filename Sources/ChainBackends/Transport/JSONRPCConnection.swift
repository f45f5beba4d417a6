import NIOCore

/// One JSON-RPC request of a batch.
public struct RPCRequest: Sendable {
    public var method: String
    public var params: [JSONValue]

    public init(_ method: String, _ params: [JSONValue] = []) {
        self.method = method
        self.params = params
    }
}

/// A newline-delimited JSON-RPC connection (the Electrum protocol) that sends batches and waits for every answer, with
/// a timeout; reconnects once when the connection was lost between or during batches.
final class JSONRPCConnection: @unchecked Sendable {
    let host: String
    let port: Int
    let tls: NodeURL.TLSOptions?
    let timeout: Int
    /// The SOCKS proxy the connection goes through, if any.
    var proxy: SOCKSProxy?
    private var channel: (any Channel)?
    private var handler: LineChannelHandler?
    private var nextID = 0
    /// Called after each (re)connect, for example to negotiate the protocol version.
    var onConnect: (@Sendable (JSONRPCConnection) async throws(ChainError) -> Void)?

    init(host: String, port: Int, tls: NodeURL.TLSOptions?, timeout: Int) {
        self.host = host
        self.port = port
        self.tls = tls
        self.timeout = timeout
    }

    private func connect() async throws(ChainError) {
        let handler = LineChannelHandler(host: host, port: port)
        let channel = try await Connector.connect(
            host: host, port: port, tls: tls, timeout: timeout, handler: handler, proxy: proxy)
        self.channel = channel
        self.handler = handler
        if let onConnect { try await onConnect(self) }
    }

    func close() async {
        if let channel { try? await channel.close() }
        channel = nil
        handler = nil
    }

    /// Sends `requests` as one batch (several batches of at most `chunk`); returns the results in order.
    ///
    /// A response with an `error` member becomes `.failure(.server(code:message:))` in its slot.
    func batch(_ requests: [RPCRequest], chunk: Int = 100) async throws(ChainError) -> [Result<JSONValue, ChainError>] {
        var results: [Result<JSONValue, ChainError>] = []
        var start = 0
        while start < requests.count {
            let part = Array(requests[start..<min(start + chunk, requests.count)])
            do {
                results += try await send(part)
            } catch {
                // One reconnect: reads are idempotent, and a lost connection is common with public servers.
                guard case .connectionClosed = error else { throw error }
                await close()
                results += try await send(part)
            }
            start += chunk
        }
        return results
    }

    /// One request; throws the server's error.
    func call(_ method: String, _ params: [JSONValue] = []) async throws(ChainError) -> JSONValue {
        guard let first = try await batch([RPCRequest(method, params)]).first else {
            throw .protocolViolation("no response to \(method)")
        }
        return try first.get()
    }

    private func send(_ requests: [RPCRequest]) async throws(ChainError) -> [Result<JSONValue, ChainError>] {
        if channel == nil { try await connect() }
        guard let channel, let handler else { throw .connectionClosed(host: host, port: port) }
        var ids: [Int] = []
        var messages: [JSONValue] = []
        for request in requests {
            nextID += 1
            ids.append(nextID)
            messages.append(
                .object([
                    "jsonrpc": "2.0", "id": .number(Double(nextID)), "method": .string(request.method),
                    "params": .array(request.params),
                ]))
        }
        let payload: JSONValue = messages.count == 1 ? messages[0] : .array(messages)
        let promises = ids.map { _ in channel.eventLoop.makePromise(of: JSONValue.self) }
        let registered = channel.eventLoop.submit {
            for (id, promise) in zip(ids, promises) { handler.register(id: id, promise: promise) }
        }
        let seconds = timeout
        let operation = requests.first?.method ?? "request"
        let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) {
            handler.fail(ids: ids, with: .timeout(operation: operation, seconds: seconds))
        }
        defer { timer.cancel() }
        do {
            try await registered.get()
            var buffer = channel.allocator.buffer(capacity: 256)
            buffer.writeBytes(payload.serialized() + [UInt8(ascii: "\n")])
            try await channel.writeAndFlush(buffer)
        } catch {
            self.channel = nil
            throw .connectionClosed(host: host, port: port)
        }
        var results: [Result<JSONValue, ChainError>] = []
        for (promise, request) in zip(promises, requests) {
            let response: JSONValue
            do {
                response = try await promise.futureResult.get()
            } catch let error as ChainError {
                if case .connectionClosed = error { self.channel = nil }
                throw error
            } catch {
                throw .protocolViolation("\(error)")
            }
            if let error = response["error"], !error.isNull {
                let code = error["code"]?.int ?? 0
                let message = error["message"]?.string ?? "\(error)"
                results.append(.failure(.server(code: code, message: message)))
            } else if let result = response["result"] {
                results.append(.success(result))
            } else {
                throw .protocolViolation("response to \(request.method) has neither result nor error")
            }
        }
        return results
    }
}
