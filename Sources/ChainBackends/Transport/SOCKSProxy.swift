import Foundation
import NIOCore
import NIOSOCKS

/// A SOCKS5 proxy that resolves names itself: `socks5h://HOST:PORT` (Tor's is `socks5h://127.0.0.1:9050`).
///
/// With a proxy every connection goes through it, the target's host name is handed to the proxy unresolved, and TLS
/// starts only after the proxy's handshake; nothing is resolved locally but the proxy's own address.
public struct SOCKSProxy: Sendable, Equatable, CustomStringConvertible {
    /// The proxy's host (an IP address or a local name).
    public var host: String
    /// The proxy's port.
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `socks5h://HOST:PORT`.
    ///
    /// - Throws: `ChainError.invalidURL` naming what is wrong; `socks5://` (local name resolution) is refused.
    public init(string: String) throws(ChainError) {
        let text = string.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = text.range(of: "://") else {
            throw .invalidURL("proxy '\(text)' has no scheme; use socks5h://HOST:PORT")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "socks5h" else {
            throw .invalidURL(
                "proxy scheme '\(scheme)' is not supported; use socks5h://HOST:PORT (the proxy resolves names)")
        }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw .invalidURL("proxy '\(text)' has no host")
        }
        guard components.user == nil, components.path.isEmpty || components.path == "/", components.query == nil else {
            throw .invalidURL("proxy '\(text)': only socks5h://HOST:PORT is supported (no user, path or query)")
        }
        guard let port = components.port else { throw .invalidURL("proxy '\(text)' needs a port (HOST:PORT)") }
        guard (1...65535).contains(port) else { throw .invalidURL("proxy port \(port) is out of range") }
        self.init(host: host, port: port)
    }

    public var description: String {
        "socks5h://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Whether `host` is a Tor onion service name, which only a Tor proxy can reach.
    public static func isOnion(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name.hasSuffix(".onion")
    }

    /// Checks that `host` can be reached with `proxy` (nil: directly).
    ///
    /// - Throws: `ChainError.invalidURL` for an `.onion` host without a proxy, or a name too long for SOCKS5.
    public static func check(host: String, proxy: SOCKSProxy?) throws(ChainError) {
        if proxy == nil, isOnion(host) {
            throw .invalidURL(
                "\(host) is a Tor onion service: it is reachable only through Tor; "
                    + "set the node with --proxy socks5h://127.0.0.1:9050 (Tor's SOCKS port)")
        }
        if proxy != nil, host.utf8.count > 255 {
            throw .invalidURL("host name longer than 255 bytes cannot be sent to a SOCKS5 proxy")
        }
    }

    /// The target as the proxy should see it: an IP literal as an address, any other name unresolved.
    func target(host: String, port: Int) -> SOCKSAddress {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if Connector.isIPAddress(literal), let address = try? SocketAddress(ipAddress: literal, port: port) {
            return .address(address)
        }
        return .domain(host, port: port)
    }
}

/// Waits in the pipeline for the end of the SOCKS handshake.
///
/// Once the proxy has connected, it puts the TLS handler (if any) and the protocol handler after itself, leaves, and
/// reports success. A handshake failure or a closed connection fails it.
final class SOCKSReadyHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let ready: EventLoopPromise<Void>
    private let install: @Sendable (any Channel) throws -> [any ChannelHandler]
    private var settled = false

    init(ready: EventLoopPromise<Void>, install: @escaping @Sendable (any Channel) throws -> [any ChannelHandler]) {
        self.ready = ready
        self.install = install
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is SOCKSProxyEstablishedEvent, !settled else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        settled = true
        do {
            var anchor: any ChannelHandler = self
            for handler in try install(context.channel) {
                try context.pipeline.syncOperations.addHandler(handler, position: .after(anchor))
                anchor = handler
            }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            ready.succeed(())
        } catch {
            ready.fail(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !settled else { return context.fireErrorCaught(error) }
        settled = true
        ready.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !settled {
            settled = true
            ready.fail(ChannelError.eof)
        }
        context.fireChannelInactive()
    }

    func fail(_ error: any Error, context channel: any Channel) {
        guard !settled else { return }
        settled = true
        ready.fail(error)
        channel.close(promise: nil)
    }
}

extension SOCKSServerReply {
    /// RFC 1928's words for a reply code.
    var meaning: String {
        switch self {
        case .succeeded: "succeeded"
        case .serverFailure: "general SOCKS server failure"
        case .notAllowed: "connection not allowed by ruleset"
        case .networkUnreachable: "network unreachable"
        case .hostUnreachable: "host unreachable (or its name did not resolve)"
        case .refused: "connection refused"
        case .ttlExpired: "TTL expired"
        case .commandUnsupported: "command not supported"
        case .addressUnsupported: "address type not supported"
        default: "reply code \(self.value)"
        }
    }
}
