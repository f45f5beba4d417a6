import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP request, read whole (bodies up to `WebServer.maximumBody`).
public struct WebRequest: Sendable {
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: [String: String]
    /// Header names lower-case.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String], headers: [String: String], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// One response: a body at once, or server-sent events as they come.
public struct WebResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Server-sent events: each element one `data:` event (the response ends with the stream).
    public var events: AsyncStream<String>?

    public init(
        status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = [],
        events: AsyncStream<String>? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.events = events
    }

    /// Plain text.
    public static func text(_ text: String, status: Int = 200) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}

/// The HTTP/1.1 server on NIOHTTP1: reads each request, asks `respond`, writes the answer with the security headers
/// of `WebSecurity`, one request a connection.
public struct WebServer: Sendable {
    /// The largest request body read (a camera frame is a few hundred kB of gray pixels).
    public static let maximumBody = 16 << 20

    /// Binds `host` (a loopback address) on `port` (0: a free one) and serves until the process ends; `ready` is
    /// called with the port bound before the first request is read.
    public static func run(
        host: String, port: Int, ready: @Sendable (Int) throws -> Void,
        respond: @escaping @Sendable (WebRequest) async -> WebResponse
    ) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        try ready(server.channel.localAddress?.port ?? port)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await serve(connection, respond: respond) }
                }
            }
        }
    }

    static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
        respond: @Sendable (WebRequest) async -> WebResponse
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            var tooLarge = false
            for try await part in inbound {
                switch part {
                case .head(let h):
                    head = h
                    body = []
                case .body(var buffer):
                    if body.count + buffer.readableBytes > maximumBody {
                        tooLarge = true
                    } else {
                        body += buffer.readBytes(length: buffer.readableBytes) ?? []
                    }
                case .end:
                    guard let head else { return }
                    let response: WebResponse
                    if tooLarge {
                        response = .text("the request is too large", status: 413)
                    } else {
                        var headers: [String: String] = [:]
                        for (name, value) in head.headers { headers[name.lowercased()] = value }
                        let (path, query) = WebSecurity.split(head.uri)
                        response = await respond(
                            WebRequest(
                                method: head.method.rawValue, path: path, query: query, headers: headers, body: body))
                    }
                    try await write(response, version: head.version, to: outbound)
                    return
                }
            }
        }
    }

    static func write(
        _ response: WebResponse, version: HTTPVersion,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        for (name, value) in WebSecurity.headers { headers.add(name: name, value: value) }
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        headers.add(name: "Connection", value: "close")
        let status = HTTPResponseStatus(statusCode: response.status)
        guard let events = response.events else {
            headers.add(name: "Content-Length", value: String(response.body.count))
            try await outbound.write(.head(HTTPResponseHead(version: version, status: status, headers: headers)))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
            try await outbound.write(.end(nil))
            return
        }
        try await outbound.write(.head(HTTPResponseHead(version: version, status: status, headers: headers)))
        for await event in events {
            let lines = event.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }
            try await outbound.write(.body(.byteBuffer(ByteBuffer(string: lines.joined() + "\n"))))
        }
        try await outbound.write(.end(nil))
    }
}
