import ChainCore
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Opens TCP or TLS connections with SwiftNIO, with a connect timeout, on the shared event loop group.
enum Connector {
    /// Connects to `host:port`, adding TLS when asked, then `handler`.
    static func connect(
        host: String, port: Int, tls: NodeURL.TLSOptions?, timeout: Int,
        handler: some ChannelHandler & Sendable
    ) async throws(ChainError) -> any Channel {
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
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(Int64(timeout)))
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        let tlsHandler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
                        try channel.pipeline.syncOperations.addHandler(tlsHandler)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        do {
            return try await bootstrap.connect(host: host, port: port).get()
        } catch {
            throw .connectionFailed(host: host, port: port, reason: describe(error))
        }
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
