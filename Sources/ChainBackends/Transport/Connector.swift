import ChainCore
import Foundation
import NIOCore
import NIOPosix
import NIOSOCKS
import NIOSSL

/// Opens TCP or TLS connections with SwiftNIO, with a connect timeout, on the shared event loop group.
enum Connector {
    /// Connects to `host:port`, adding TLS when asked, then `handler`; through `proxy` when one is given (the host
    /// name goes to the proxy unresolved, and TLS starts after the proxy's handshake).
    static func connect(
        host: String, port: Int, tls: NodeURL.TLSOptions?, timeout: Int,
        handler: some ChannelHandler & Sendable, proxy: SOCKSProxy? = nil
    ) async throws(ChainError) -> any Channel {
        try await connect(host: host, port: port, tls: tls, timeout: timeout, proxy: proxy) { [handler] }
    }

    /// Connects as above, then adds the handlers `install` makes, in order, on the channel's event loop (for
    /// handlers that are not `Sendable`, such as NIOHTTP1's codecs).
    static func connect(
        host: String, port: Int, tls: NodeURL.TLSOptions?, timeout: Int, proxy: SOCKSProxy? = nil,
        install: @escaping @Sendable () throws -> [any ChannelHandler]
    ) async throws(ChainError) -> any Channel {
        try SOCKSProxy.check(host: host, proxy: proxy)
        var sslContext: NIOSSLContext?
        if let tls {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if tls.insecure { configuration.certificateVerification = .none }
            if let ca = tls.caFile { configuration.trustRoots = .file(ca) }
            do {
                sslContext = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .tls("cannot set up TLS: \(error)")
            }
        }
        let context = sslContext
        let serverName = isIPAddress(host) ? nil : host
        if let proxy {
            return try await connectThrough(
                proxy, host: host, port: port, sslContext: context, serverName: serverName, timeout: timeout,
                install: install)
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(Int64(timeout)))
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        let tlsHandler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                        try channel.pipeline.syncOperations.addHandler(tlsHandler)
                    }
                    try channel.pipeline.syncOperations.addHandlers(install())
                }
            }
        do {
            return try await bootstrap.connect(host: host, port: port).get()
        } catch {
            throw .connectionFailed(host: host, port: port, reason: describe(error))
        }
    }

    /// Connects to the proxy (the only address resolved here), asks it for `host:port`, then adds TLS and `handler`.
    private static func connectThrough(
        _ proxy: SOCKSProxy, host: String, port: Int, sslContext: NIOSSLContext?, serverName: String?, timeout: Int,
        install: @escaping @Sendable () throws -> [any ChannelHandler]
    ) async throws(ChainError) -> any Channel {
        let target = proxy.target(host: host, port: port)
        let readyBox = ReadyBox()
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(Int64(timeout)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let ready = SOCKSReadyHandler(ready: channel.eventLoop.makePromise()) { channel in
                        var handlers: [any ChannelHandler] = []
                        if let sslContext {
                            handlers.append(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        }
                        handlers += try install()
                        return handlers
                    }
                    readyBox.handler = ready
                    try channel.pipeline.syncOperations.addHandler(SOCKSClientHandler(targetAddress: target))
                    try channel.pipeline.syncOperations.addHandler(ready)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: proxy.host, port: proxy.port).get()
        } catch {
            readyBox.handler?.ready.fail(error)  // never completed otherwise: the channel never became active
            throw .connectionFailed(
                host: "SOCKS proxy \(proxy.host)", port: proxy.port,
                reason: describe(error) + " (not connecting directly)")
        }
        guard let ready = readyBox.handler else {
            channel.close(promise: nil)
            throw .connectionFailed(host: host, port: port, reason: "SOCKS handshake not set up")
        }
        let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(timeout))) {
            ready.fail(
                ChainError.timeout(operation: "SOCKS handshake with \(proxy)", seconds: timeout), context: channel)
        }
        defer { timer.cancel() }
        do {
            try await ready.ready.futureResult.get()
        } catch let error as ChainError {
            throw error
        } catch let error as SOCKSError.ConnectionFailed {
            throw .connectionFailed(
                host: host, port: port, reason: "the proxy \(proxy) could not connect: \(error.reply.meaning)")
        } catch {
            throw .connectionFailed(host: host, port: port, reason: "through the proxy \(proxy): \(describe(error))")
        }
        return channel
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }

    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return io.description }
        if error is ChannelError { return "\(error)" }
        return "\(error)"
    }
}

/// The ready handler made in the channel initializer, handed back to the connecting task.
private final class ReadyBox: @unchecked Sendable {
    var handler: SOCKSReadyHandler?
}
