import ChainCore
import Codecs
import NIOCore

/// Newline-delimited JSON-RPC over one channel: writes requests, routes each response (or each element of a batch
/// response, read in place in the line's `JSONDocument`) to the promise waiting on its id, and drops notifications.
///
/// State is touched on the event loop only.
package final class LineChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    package typealias InboundIn = ByteBuffer

    /// The longest line accepted before the connection is dropped as broken: the hex of the largest transaction
    /// (2 × 4,000,000 characters) with room for its JSON framing.
    static let maxLineLength = 8_065_536

    private var partial: [UInt8] = []
    private var waiters: [Int: EventLoopPromise<JSONElement>] = [:]
    private var failure: ChainError?
    private let host: String
    private let port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Registers a promise for the response with `id`; fails it at once if the connection is already gone.
    package func register(id: Int, promise: EventLoopPromise<JSONElement>) {
        if let failure {
            promise.fail(failure)
        } else {
            waiters[id] = promise
        }
    }

    /// Fails the waiters of `ids` still pending (a timeout).
    func fail(ids: [Int], with error: ChainError) {
        for id in ids { waiters.removeValue(forKey: id)?.fail(error) }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard failure == nil else { return }
        var start = partial.count
        buffer.withUnsafeReadableBytes { partial.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        var lineStart = 0
        // A line is judged by its length whether or not its end came in the same read.
        while let newline = Self.newline(in: partial, from: start), newline - lineStart <= Self.maxLineLength {
            let line = partial[lineStart..<newline]
            lineStart = newline + 1
            start = lineStart
            if !line.allSatisfy({ $0 == 32 || $0 == 13 }) { handle(line: line, context: context) }
            guard failure == nil else { return }
        }
        partial.removeFirst(lineStart)
        if partial.count > Self.maxLineLength {
            partial = []
            failAll(.protocolViolation("a line longer than \(Self.maxLineLength) bytes"))
            context.close(promise: nil)
        }
    }

    /// The index of the first line feed in `bytes` at or after `start`, or nil; eight bytes at a time while no byte of
    /// the word can be one (most of an answer is a transaction's hex; a byte scan was 1.6% of a sync's instructions).
    static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var i = start
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            while buffer.count - i >= 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ (ones &* 0x0A)
                // A zero byte of `word` (a line feed of the text) shows as a high bit here; other bits only may.
                if (word &- ones) & ~word & high != 0 { break }
                i += 8
            }
            while i < buffer.count {
                if buffer[i] == UInt8(ascii: "\n") { return i }
                i += 1
            }
            return nil
        }
    }

    private func handle(line: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        // Read in place: each response is a part of the line's one document (issue 33: a tree of values made and
        // freed for every answer was a tenth of a sync's client CPU).
        let message: JSONElement
        do {
            message = try JSONDocument.parse(line).root
        } catch {
            failAll(error)
            context.close(promise: nil)
            return
        }
        let responses = message.array ?? [message]
        for response in responses {
            guard let id = response["id"]?.int else { continue }  // a notification, or an id we never sent
            waiters.removeValue(forKey: id)?.succeed(response)
        }
    }

    private func failAll(_ error: ChainError) {
        if failure == nil { failure = error }
        let pending = waiters
        waiters = [:]
        for promise in pending.values { promise.fail(error) }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        failAll(.connectionClosed(host: host, port: port))
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(.connectionFailed(host: host, port: port, reason: "\(error)"))
        context.close(promise: nil)
    }
}
