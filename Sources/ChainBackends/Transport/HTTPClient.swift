import Foundation
import NIOCore

/// A response of `HTTPClient`.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// A small HTTP/1.1 client over SwiftNIO: one request per connection (`Connection: close`), the whole response read to
/// the end, `Content-Length` and chunked bodies decoded, a size limit and a timeout.
struct HTTPClient: Sendable {
    let host: String
    let port: Int
    let tls: NodeURL.TLSOptions?
    let timeout: Int
    /// The SOCKS proxy every connection goes through, if any.
    var proxy: SOCKSProxy?
    /// Responses larger than this are refused.
    var maxResponseSize = 256 << 20

    func request(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws(ChainError) -> HTTPResponse {
        let collector = CollectingHandler(limit: maxResponseSize)
        let channel = try await Connector.connect(
            host: host, port: port, tls: tls, timeout: timeout, handler: collector, proxy: proxy)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        head += "User-Agent: airlock-watcher\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var buffer = channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let seconds = timeout
        let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) {
            collector.timedOut = true
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            try await channel.writeAndFlush(buffer)
        } catch {
            throw .connectionClosed(host: host, port: port)
        }
        let raw: [UInt8]
        do {
            raw = try await collector.done.futureResult(on: channel.eventLoop).get()
        } catch let error as ChainError {
            throw error
        } catch {
            throw .protocolViolation("\(error)")
        }
        if collector.timedOut, (try? Self.parse(raw)) == nil {
            throw .timeout(operation: "\(method) \(path)", seconds: seconds)
        }
        return try Self.parse(raw)
    }

    /// Parses a complete HTTP/1.1 response.
    static func parse(_ raw: [UInt8]) throws(ChainError) -> HTTPResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = raw.firstRange(of: separator) else {
            throw .protocolViolation("incomplete HTTP response (\(raw.count) bytes)")
        }
        let headText = String(decoding: raw[..<headEnd.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw .protocolViolation("not an HTTP response")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(raw[headEnd.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else { throw .protocolViolation("bad Content-Length") }
            guard body.count >= length else {
                throw .protocolViolation("HTTP body cut short: \(body.count) of \(length) bytes")
            }
            body = Array(body.prefix(length))
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: [UInt8]) throws(ChainError) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = data[index...].firstRange(of: [13, 10]) else {
                throw .protocolViolation("chunked body cut short")
            }
            let sizeText =
                String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw .protocolViolation("bad chunk size '\(sizeText)'")
            }
            index = lineEnd.upperBound
            if size == 0 { return out }
            guard data.count >= index + size else { throw .protocolViolation("chunked body cut short") }
            out += data[index..<index + size]
            index += size + 2
        }
    }
}

/// Collects every byte until the peer closes; fails past a size limit.
final class CollectingHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private var bytes: [UInt8] = []
    private let limit: Int
    var timedOut = false
    let done = DeferredPromise()

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
        if bytes.count > limit {
            done.fail(ChainError.protocolViolation("HTTP response larger than \(limit) bytes"), on: context.eventLoop)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.succeed(bytes, on: context.eventLoop)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS peer that closes without close_notify still sent a whole response; judge it by parsing.
        if (try? HTTPClient.parse(bytes)) != nil {
            done.succeed(bytes, on: context.eventLoop)
        } else {
            done.fail(ChainError.connectionFailed(host: "server", port: 0, reason: "\(error)"), on: context.eventLoop)
        }
        context.close(promise: nil)
    }
}

/// A promise created lazily on the channel's event loop, settled once.
final class DeferredPromise: @unchecked Sendable {
    private var promise: EventLoopPromise<[UInt8]>?
    private var result: Result<[UInt8], any Error>?

    func futureResult(on loop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        loop.submit { () -> EventLoopFuture<[UInt8]> in
            if let result = self.result { return loop.makeCompletedFuture(result) }
            let promise = self.promise ?? loop.makePromise(of: [UInt8].self)
            self.promise = promise
            return promise.futureResult
        }.flatMap { $0 }
    }

    func succeed(_ value: [UInt8], on loop: any EventLoop) { settle(.success(value)) }
    func fail(_ error: any Error, on loop: any EventLoop) { settle(.failure(error)) }

    private func settle(_ value: Result<[UInt8], any Error>) {
        guard result == nil else { return }
        result = value
        promise?.completeWith(value)
    }
}
