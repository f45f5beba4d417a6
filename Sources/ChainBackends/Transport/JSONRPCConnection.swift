import ChainCore
import Codecs
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
/// a timeout; reconnects once when the connection was lost between or during batches. Several batches may be in
/// flight at once (from concurrent tasks); answers are matched by id.
///
/// An actor: the channel, the handler and the request ids are touched by one task at a time.
actor JSONRPCConnection {
    /// Opens a channel whose pipeline ends in the given handler.
    typealias Opener = @Sendable (LineChannelHandler) async throws(ChainError) -> any Channel
    /// Called after each (re)connect, for example to negotiate the protocol version.
    typealias ConnectHook = @Sendable (JSONRPCConnection) async throws(ChainError) -> Void

    let host: String
    let port: Int
    let timeout: Int
    private let open: Opener
    private let onConnect: ConnectHook?
    private var channel: (any Channel)?
    private var handler: LineChannelHandler?
    private var nextID = 0
    /// Counts the connections opened, so a request that fails drops only its own connection.
    private var generation = 0
    private var connecting = false
    private var connectWaiters: [CheckedContinuation<Void, Never>] = []

    /// A connection to `host:port` over TCP, or TLS with `tls`, through the SOCKS `proxy` when given; nothing is
    /// opened until the first request.
    init(
        host: String, port: Int, tls: NodeURL.TLSOptions?, timeout: Int, proxy: SOCKSProxy? = nil,
        onConnect: ConnectHook? = nil
    ) {
        self.init(host: host, port: port, timeout: timeout, onConnect: onConnect) {
            (handler: LineChannelHandler) async throws(ChainError) -> any Channel in
            try await Connector.connect(
                host: host, port: port, tls: tls, timeout: timeout, handler: handler, proxy: proxy)
        }
    }

    /// A connection over channels that `open` makes (a transcript test's in-memory channel).
    init(host: String, port: Int, timeout: Int, onConnect: ConnectHook? = nil, open: @escaping Opener) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.onConnect = onConnect
        self.open = open
    }

    private func connect() async throws(ChainError) {
        let handler = LineChannelHandler(host: host, port: port)
        let channel = try await open(handler)
        generation += 1
        self.channel = channel
        self.handler = handler
        if let onConnect { try await onConnect(self) }
    }

    /// Opens the connection unless it is open; callers that arrive while another one is connecting wait for it
    /// (several requests may be in flight at once: a pipelined sync), so one connection is opened, not one each.
    private func ensureConnected() async throws(ChainError) {
        while channel == nil && connecting {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in connectWaiters.append(waiter)
            }
        }
        if channel != nil { return }
        connecting = true
        defer {
            connecting = false
            let waiters = connectWaiters
            connectWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        try await connect()
    }

    func close() async {
        if let channel { try? await channel.close() }
        channel = nil
        handler = nil
    }

    /// Drops the connection of `generation` (broken or timed out), unless a newer one has replaced it already.
    private func drop(generation dropped: Int) async {
        guard dropped == generation, let channel else { return }
        self.channel = nil
        handler = nil
        try? await channel.close()
    }

    /// Sends `requests` as batches of at most `chunk`, all written at once (pipelined: the server works on the next
    /// while the answers to the first are read); returns the results in order.
    ///
    /// A response with an `error` member becomes `.failure(.server(code:message:))` in its slot. When the connection
    /// was lost, it is opened again once and the requests sent again (reads are idempotent, and a lost connection is
    /// common with public servers).
    func batch(_ requests: [RPCRequest], chunk: Int = 100) async throws(ChainError) -> [Result<JSONElement, ChainError>]
    {
        guard !requests.isEmpty else { return [] }
        do {
            return try await send(requests, chunk: max(1, chunk))
        } catch {
            guard case .connectionClosed = error else { throw error }
            return try await send(requests, chunk: max(1, chunk))
        }
    }

    /// One request; throws the server's error.
    func call(_ method: String, _ params: [JSONValue] = []) async throws(ChainError) -> JSONValue {
        guard let first = try await batch([RPCRequest(method, params)]).first else {
            throw .protocolViolation("no response to \(method)")
        }
        return try first.get().value
    }

    /// One request's JSON text, written straight into `out`: `{"id":…,"jsonrpc":"2.0","method":…,"params":[…]}`, the
    /// members in the order of their names, the text `JSONValue.object` of them serializes to (no object built per
    /// request: the sync writes some 11,000 of them).
    static func write(_ request: RPCRequest, id: Int, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        out.append(contentsOf: String(id).utf8)
        out.append(contentsOf: #","jsonrpc":"2.0","method":"#.utf8)
        JSONValue.string(request.method).write(into: &out)
        out.append(contentsOf: #","params":"#.utf8)
        JSONValue.array(request.params).write(into: &out)
        out.append(UInt8(ascii: "}"))
    }

    private func send(_ requests: [RPCRequest], chunk: Int) async throws(ChainError) -> [Result<
        JSONElement, ChainError
    >] {
        try await ensureConnected()
        guard let channel, let handler else { throw .connectionClosed(host: host, port: port) }
        let connection = generation
        var ids: [Int] = []
        ids.reserveCapacity(requests.count)
        var payload: [UInt8] = []
        payload.reserveCapacity(requests.count * 128)
        var start = 0
        while start < requests.count {
            let end = min(start + chunk, requests.count)
            if end - start > 1 { payload.append(UInt8(ascii: "[")) }
            for index in start..<end {
                if index > start { payload.append(UInt8(ascii: ",")) }
                nextID += 1
                ids.append(nextID)
                Self.write(requests[index], id: nextID, into: &payload)
            }
            if end - start > 1 { payload.append(UInt8(ascii: "]")) }
            payload.append(UInt8(ascii: "\n"))
            start += chunk
        }
        let sent = ids
        let promises = sent.map { _ in channel.eventLoop.makePromise(of: JSONElement.self) }
        let registered = channel.eventLoop.submit {
            for (id, promise) in zip(sent, promises) { handler.register(id: id, promise: promise) }
        }
        let seconds = timeout
        let operation = requests.first?.method ?? "request"
        let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) {
            handler.fail(ids: sent, with: .timeout(operation: operation, seconds: seconds))
        }
        defer { timer.cancel() }
        do {
            try await registered.get()
            var buffer = channel.allocator.buffer(capacity: payload.count)
            buffer.writeBytes(payload)
            try await channel.writeAndFlush(buffer)
        } catch {
            await drop(generation: connection)
            throw .connectionClosed(host: host, port: port)
        }
        var results: [Result<JSONElement, ChainError>] = []
        results.reserveCapacity(requests.count)
        // The answers awaited at once, as one future completed on the event loop when the last is in. Awaited one
        // by one, each promise's future, read from outside its event loop, hopped onto that thread and back: two
        // thread hand-offs per answer, some 300,000 context switches in a 100,000-transaction sync, whose cost grew
        // with the wallet (issue 33). Every way a promise fails (the connection lost, the batch timed out) fails all
        // those still outstanding, so this completes when the old loop did.
        let outcomes: [Result<JSONElement, any Error>]
        do {
            outcomes = try await EventLoopFuture.whenAllComplete(promises.map(\.futureResult), on: channel.eventLoop)
                .get()
        } catch {
            throw .protocolViolation("\(error)")
        }
        for (outcome, request) in zip(outcomes, requests) {
            let response: JSONElement
            switch outcome {
            case .success(let answer):
                response = answer
            case .failure(let error as ChainError):
                // The connection is of no further use (closed, broken by the server, or timed out with answers
                // outstanding): the next request opens a new one.
                await drop(generation: connection)
                throw error
            case .failure(let error):
                throw .protocolViolation("\(error)")
            }
            if let error = response["error"], !error.isNull {
                let code = error["code"]?.int ?? 0
                let message = error["message"]?.string ?? "\(error.value)"
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
