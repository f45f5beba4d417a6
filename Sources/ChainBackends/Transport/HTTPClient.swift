import ChainCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOSSL

/// A response of `HTTPClient`.
package struct HTTPResponse: Sendable {
    package var status: Int
    /// Header names in lower case; a repeated header keeps its last value.
    package var headers: [String: String]
    package var body: [UInt8]
}

/// An HTTP/1.1 client over SwiftNIO with NIOHTTP1's codecs.
///
/// `HTTPRequestEncoder` and `HTTPResponseDecoder`: one request per connection (`Connection: close`), the whole
/// response collected, a size limit and a timeout. TLS and the SOCKS proxy sit below the codecs (`Connector`).
package struct HTTPClient: Sendable {
    let host: String
    let port: Int
    let tls: NodeURL.TLSOptions?
    let timeout: Int
    /// The SOCKS proxy every connection goes through, if any.
    var proxy: SOCKSProxy?
    /// Responses whose body is larger than this are refused.
    var maxResponseSize = 256 << 20

    func request(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws(ChainError) -> HTTPResponse {
        let collector = HTTPResponseCollector(limit: maxResponseSize)
        let channel = try await Connector.connect(host: host, port: port, tls: tls, timeout: timeout, proxy: proxy) {
            try Self.codecs(collector)
        }
        let seconds = timeout
        let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) {
            collector.timedOut = true
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        let head = requestHead(method: method, path: path, headers: headers, bodySize: body.count)
        var buffer = channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        do {
            try await channel.eventLoop.flatSubmit { [buffer] in
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.write(HTTPClientRequestPart.body(.byteBuffer(buffer)), promise: nil)
                return channel.writeAndFlush(HTTPClientRequestPart.end(nil))
            }.get()
        } catch {
            throw .connectionClosed(host: host, port: port)
        }
        let result = await collector.outcome.futureResult(on: channel.eventLoop)
        channel.close(promise: nil)
        switch result {
        case .success(let response): return response
        case .failure where collector.timedOut: throw .timeout(operation: "\(method) \(path)", seconds: seconds)
        case .failure(let error): throw error
        }
    }

    func requestHead(method: String, path: String, headers: [String: String], bodySize: Int) -> HTTPRequestHead {
        var fields = HTTPHeaders([
            ("Host", "\(host):\(port)"), ("Connection", "close"), ("User-Agent", "airlock-watcher"),
            ("Content-Length", "\(bodySize)"),
        ])
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path, headers: fields)
    }

    /// NIOHTTP1's request encoder and response decoder, then `collector`: the handlers above TLS and SOCKS.
    static func codecs(_ collector: HTTPResponseCollector) throws -> [any ChannelHandler] {
        [
            HTTPRequestEncoder(),
            ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)), collector,
        ]
    }

    /// A recorded response (the bytes a server sent to a `POST /`) through the same codecs as a live request, on an
    /// `EmbeddedChannel`: for transcript tests and the fuzz target.
    package static func parse(_ raw: [UInt8], limit: Int = 256 << 20) throws(ChainError) -> HTTPResponse {
        try parse(raw, collector: HTTPResponseCollector(limit: limit))
    }

    /// `parse(_:limit:)` with the collector given, so a test can see the channel's pipeline let go of it.
    static func parse(_ raw: [UInt8], collector: HTTPResponseCollector) throws(ChainError) -> HTTPResponse {
        let channel = EmbeddedChannel()
        let outcome: Result<HTTPResponse, ChainError>
        do {
            try channel.pipeline.syncOperations.addHandlers(codecs(collector))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8332)).wait()
            let client = HTTPClient(host: "recorded", port: 0, tls: nil, timeout: 1)
            let head = client.requestHead(method: "POST", path: "/", headers: [:], bodySize: 0)
            try channel.writeOutbound(HTTPClientRequestPart.head(head))
            try channel.writeOutbound(HTTPClientRequestPart.end(nil))
            try channel.writeInbound(channel.allocator.buffer(bytes: raw))
        } catch {
            // The decoder's errors reach the collector through `errorCaught` and settle the outcome below.
        }
        // A malformed response makes the collector close the channel itself; finishing must still run the loop that
        // removes the handlers, or the pipeline and the channel keep each other alive (a leak per response).
        _ = try? channel.finish(acceptAlreadyClosed: true)
        outcome = collector.settled ?? .failure(.protocolViolation("incomplete HTTP response"))
        return try outcome.get()
    }
}

/// Collects the parts NIOHTTP1's decoder reads into one `HTTPResponse`; fails past a size limit, on a malformed
/// response, or when the connection ends before the response does.
final class HTTPResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    private let limit: Int
    private var status: Int?
    private var headers: [String: String] = [:]
    private var body: [UInt8] = []
    /// Set by the request's timer (on the channel's event loop) before it closes the channel.
    var timedOut = false
    let outcome = DeferredResult()
    private(set) var settled: Result<HTTPResponse, ChainError>?

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard settled == nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            if let length = headers["content-length"].flatMap({ Int($0) }), length > limit {
                fail(.protocolViolation("HTTP response larger than \(limit) bytes"), context: context)
            }
        case .body(let buffer):
            guard buffer.readableBytes <= limit - body.count else {
                return fail(.protocolViolation("HTTP response larger than \(limit) bytes"), context: context)
            }
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case .end:
            settle(.success(HTTPResponse(status: status ?? 0, headers: headers, body: body)))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS peer that closes without close_notify may still have sent a whole response: the decoder judges that
        // at the end of input (a body without length ends there; a cut-short one fails).
        if let tlsError = error as? NIOSSLError, case .uncleanShutdown = tlsError { return }
        if let parserError = error as? HTTPParserError {
            fail(.protocolViolation(describe(parserError)), context: context)
        } else if error as? NIOHTTPDecoderError == .unsolicitedResponse {
            fail(.protocolViolation("an HTTP response arrived before the request was sent"), context: context)
        } else {
            fail(.connectionFailed(host: "server", port: 0, reason: "\(error)"), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(.failure(.protocolViolation(cutShort)))
        context.fireChannelInactive()
    }

    /// What was missing when the response ended early.
    private var cutShort: String {
        guard status != nil else { return "incomplete HTTP response (the connection closed before its headers ended)" }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true { return "chunked body cut short" }
        if let length = headers["content-length"] { return "HTTP body cut short: \(body.count) of \(length) bytes" }
        return "incomplete HTTP response"
    }

    private func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidEOFState: return cutShort
        case .invalidContentLength, .unexpectedContentLength: return "bad Content-Length"
        case .invalidChunkSize: return "bad chunk size"
        case .headerOverflow: return "HTTP headers too large"
        default: return status == nil ? "not an HTTP response" : "malformed HTTP response (\(error.debugDescription))"
        }
    }

    private func fail(_ error: ChainError, context: ChannelHandlerContext) {
        settle(.failure(error))
        context.close(promise: nil)
    }

    private func settle(_ result: Result<HTTPResponse, ChainError>) {
        guard settled == nil else { return }
        settled = result
        outcome.settle(result)
    }
}

/// A result settled once on a channel's event loop, awaited from a task that may start waiting before or after.
final class DeferredResult: @unchecked Sendable {
    private var promise: EventLoopPromise<HTTPResponse>?
    private var result: Result<HTTPResponse, ChainError>?

    /// The settled result, read on `loop` (the channel's event loop, where `settle` runs).
    func futureResult(on loop: any EventLoop) async -> Result<HTTPResponse, ChainError> {
        let future = loop.submit { () -> EventLoopFuture<HTTPResponse> in
            if let result = self.result { return loop.makeCompletedFuture(result.mapError { $0 as any Error }) }
            let promise = self.promise ?? loop.makePromise(of: HTTPResponse.self)
            self.promise = promise
            return promise.futureResult
        }.flatMap { $0 }
        do {
            return .success(try await future.get())
        } catch let error as ChainError {
            return .failure(error)
        } catch {
            return .failure(.protocolViolation("\(error)"))
        }
    }

    func settle(_ value: Result<HTTPResponse, ChainError>) {
        guard result == nil else { return }
        result = value
        promise?.completeWith(value.mapError { $0 as any Error })
    }
}
