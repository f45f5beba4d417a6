import ChainCore
import Foundation

/// An Ethereum node URL of `node set` (docs/architecture.md section 10): `eth+http://host[:port][/path]` or
/// `eth+https://host[:port][/path][?insecure=1|?ca=PATH]`, kept apart from the Bitcoin node.
public struct EthereumNodeURL: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let path: String
    public let tls: NodeURL.TLSOptions?

    /// Whether `text` names an Ethereum node (its scheme starts with `eth+`).
    public static func isEthereum(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("eth+")
    }

    /// Parses an `eth+http(s)://` URL.
    ///
    /// - Throws: `ChainError.invalidURL` naming what is wrong.
    public init(string: String) throws(ChainError) {
        let text = string.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = text.range(of: "://") else {
            throw .invalidURL("'\(text)' has no scheme; use eth+http:// or eth+https://")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "eth+http" || scheme == "eth+https" else {
            throw .invalidURL("unknown Ethereum scheme '\(scheme)'; use eth+http:// or eth+https://")
        }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw .invalidURL("'\(text)' is not a URL with a host")
        }
        guard components.user == nil else { throw .invalidURL("credentials in an Ethereum node URL are not supported") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let secure = scheme == "eth+https"
        if let port = components.port {
            guard (1...65535).contains(port) else { throw .invalidURL("port \(port) is out of range") }
            self.port = port
        } else {
            self.port = secure ? 443 : 80
        }
        self.host = host
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
        tls =
            secure
            ? NodeURL.TLSOptions(insecure: ["1", "true", "yes"].contains(query["insecure"] ?? ""), caFile: query["ca"])
            : nil
    }

    public var description: String { "eth+\(tls == nil ? "http" : "https")://\(host):\(port)\(path)" }
}
