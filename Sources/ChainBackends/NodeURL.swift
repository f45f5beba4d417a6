import ChainCore
import Foundation

/// A node URL of the `node set` command, parsed (docs/architecture.md section 2).
///
/// `electrum://host:port`, `electrums://host:port[?insecure=1|?ca=PATH]`,
/// `bitcoind://user:pass@host:port[/wallet]` or `bitcoind://host:port?cookie=PATH`, `esplora+http[s]://host[:port]/path`.
public enum NodeURL: Sendable, Equatable, CustomStringConvertible {
    /// An Electrum server over TCP (`tls` nil) or TLS.
    case electrum(host: String, port: Int, tls: TLSOptions?)
    /// Bitcoin Core JSON-RPC over HTTP.
    case bitcoind(host: String, port: Int, auth: RPCAuth, wallet: String?)
    /// An Esplora REST server.
    case esplora(host: String, port: Int, basePath: String, tls: TLSOptions?)

    /// How to check the server's certificate.
    public struct TLSOptions: Sendable, Equatable {
        /// Accept any certificate (self-signed Electrum servers); the URL says `insecure=1`.
        public var insecure: Bool
        /// A PEM file of trusted roots instead of the system's.
        public var caFile: String?

        public init(insecure: Bool = false, caFile: String? = nil) {
            self.insecure = insecure
            self.caFile = caFile
        }
    }

    /// RPC credentials: user and password, or a cookie file read at connect time.
    public enum RPCAuth: Sendable, Equatable {
        case password(user: String, password: String)
        case cookie(path: String)
    }

    /// Parses a node URL.
    ///
    /// - Throws: `ChainError.invalidURL` naming what is wrong (unknown scheme, missing port, …).
    public init(string: String) throws(ChainError) {
        let text = string.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = text.range(of: "://") else {
            throw .invalidURL("'\(text)' has no scheme; use electrum://, electrums://, bitcoind:// or esplora+https://")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw .invalidURL("'\(text)' is not a URL with a host")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        func tlsOptions() -> TLSOptions {
            TLSOptions(insecure: ["1", "true", "yes"].contains(query["insecure"] ?? ""), caFile: query["ca"])
        }
        func port(default value: Int?) throws(ChainError) -> Int {
            if let port = components.port {
                guard (1...65535).contains(port) else { throw .invalidURL("port \(port) is out of range") }
                return port
            }
            guard let value else { throw .invalidURL("'\(text)' needs a port (host:port)") }
            return value
        }
        switch scheme {
        case "electrum", "tcp":
            self = .electrum(host: host, port: try port(default: nil), tls: nil)
        case "electrums", "ssl":
            self = .electrum(host: host, port: try port(default: nil), tls: tlsOptions())
        case "bitcoind", "bitcoin", "bitcoin-rpc":
            let auth: RPCAuth
            if let cookie = query["cookie"], !cookie.isEmpty {
                auth = .cookie(path: cookie)
            } else if let user = components.user {
                auth = .password(
                    user: user.removingPercentEncoding ?? user,
                    password: (components.password ?? "").removingPercentEncoding ?? "")
            } else {
                throw .invalidURL("bitcoind:// needs user:password@ or ?cookie=PATH")
            }
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            var wallet: String? = path.isEmpty ? nil : path
            if let rest = wallet, rest.hasPrefix("wallet/") { wallet = String(rest.dropFirst(7)) }
            self = .bitcoind(host: host, port: try port(default: 8332), auth: auth, wallet: wallet)
        case "esplora+http":
            self = .esplora(
                host: host, port: try port(default: 80), basePath: Self.trimmedPath(components.path), tls: nil)
        case "esplora+https", "esplora":
            self = .esplora(
                host: host, port: try port(default: 443), basePath: Self.trimmedPath(components.path), tls: tlsOptions()
            )
        default:
            throw .invalidURL(
                "unknown scheme '\(scheme)'; use electrum://, electrums://, bitcoind:// or esplora+http(s)://")
        }
    }

    private static func trimmedPath(_ path: String) -> String {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The URL without credentials, for display.
    public var description: String {
        switch self {
        case .electrum(let host, let port, let tls): "\(tls == nil ? "electrum" : "electrums")://\(host):\(port)"
        case .bitcoind(let host, let port, .cookie(let cookie), let wallet):
            "bitcoind://\(host):\(port)\(wallet.map { "/\($0)" } ?? "")?cookie=\(cookie)"
        case .bitcoind(let host, let port, .password, let wallet):
            "bitcoind://\(host):\(port)\(wallet.map { "/\($0)" } ?? "") (user/password)"
        case .esplora(let host, let port, let path, let tls):
            "esplora+\(tls == nil ? "http" : "https")://\(host):\(port)\(path)"
        }
    }
}
