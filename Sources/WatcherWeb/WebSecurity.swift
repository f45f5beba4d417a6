import Foundation

/// The page's guard (issue 29 item 2, docs/watcher.md "serve"): which address the server may bind, the token of this
/// start and the session cookie it is exchanged for, the Host and Origin a request must carry (DNS rebinding,
/// cross-site requests), the CSRF token of every state-changing request, and the headers on every response.
///
/// Pure: `check` decides from the request's method and headers alone, so each rule is unit-tested.
public struct WebSecurity: Sendable {
    /// The name of the session cookie.
    public static let cookieName = "airlock_session"
    /// The header a state-changing request carries its CSRF token in.
    public static let csrfHeader = "x-airlock-csrf"

    /// The token printed in the URL to open (one per start).
    public let token: String
    /// The value of the session cookie the token is exchanged for.
    public let session: String
    /// The CSRF token the pages read from `/api/session` and send back on every POST.
    public let csrf: String
    /// The port the server listens on (the Host header must name it).
    public let port: Int

    /// A guard for a server on `port`, with fresh random secrets (32 bytes each, hex).
    public init(port: Int) {
        self.init(port: port, token: Self.randomHex(), session: Self.randomHex(), csrf: Self.randomHex())
    }

    /// A guard with the given secrets (for tests).
    public init(port: Int, token: String, session: String, csrf: String) {
        self.port = port
        self.token = token
        self.session = session
        self.csrf = csrf
    }

    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    // MARK: the address to listen on

    /// Why a `--listen` address is refused.
    public struct ListenRefused: Error, Equatable, Sendable, CustomStringConvertible {
        public let address: String
        public var description: String {
            "--listen \(address) is refused: the web app listens on the loopback interface only "
                + "(127.0.0.1 or ::1), so no other machine can reach it; use an SSH tunnel to reach it from elsewhere"
        }
    }

    /// The loopback address to bind for `--listen` (nil: 127.0.0.1); anything else is refused.
    public static func listenAddress(_ requested: String?) throws(ListenRefused) -> String {
        guard let requested else { return "127.0.0.1" }
        switch requested.lowercased() {
        case "127.0.0.1", "localhost": return "127.0.0.1"
        case "::1", "[::1]": return "::1"
        default: throw ListenRefused(address: requested)
        }
    }

    // MARK: requests

    /// What to do with a request.
    public enum Verdict: Equatable, Sendable {
        /// Serve it.
        case allow
        /// The URL token was right: set the session cookie and redirect to `location` (the URL without the token).
        case login(location: String)
        /// Refuse it with `status` (401, 403 or 421) and a plain reason.
        case refuse(status: Int, reason: String)
    }

    /// The Host values naming this server: the loopback addresses and `localhost`, with the port.
    public var allowedHosts: Set<String> { ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"] }

    /// Decides on a request from its method, target (path and query) and headers (names lower-case).
    public func check(method: String, target: String, headers: [String: String]) -> Verdict {
        // DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 sends its own Host.
        guard let host = headers["host"]?.lowercased(), allowedHosts.contains(host) else {
            return .refuse(
                status: 421,
                reason: "this server answers only to http://127.0.0.1:\(port)/ (the Host header names another site)")
        }
        let (path, query) = Self.split(target)
        let cookieValue = Self.cookie(Self.cookieName, in: headers["cookie"] ?? "")
        let hasSession = cookieValue.map { Self.constantTimeEqual($0, session) } ?? false
        if method == "GET", let given = query["token"] {
            guard Self.constantTimeEqual(given, token) else {
                return .refuse(status: 401, reason: "wrong token: open the URL airlock-watcher serve printed")
            }
            return .login(location: path)
        }
        guard hasSession else {
            return .refuse(status: 401, reason: "not logged in: open the URL airlock-watcher serve printed")
        }
        guard method != "GET", method != "HEAD" else { return .allow }
        // Every state-changing request: from a page of this server, with the CSRF token.
        guard let origin = headers["origin"]?.lowercased(), origin.hasPrefix("http://"),
            allowedHosts.contains(String(origin.dropFirst("http://".count)))
        else {
            return .refuse(status: 403, reason: "refused: the request does not come from a page of this server")
        }
        guard let given = headers[Self.csrfHeader], Self.constantTimeEqual(given, csrf) else {
            return .refuse(status: 403, reason: "refused: the request lacks this page's CSRF token (reload the page)")
        }
        return .allow
    }

    /// The `Set-Cookie` value of the session: HttpOnly (no script reads it), SameSite=Strict (no other site sends it).
    public var setCookie: String { "\(Self.cookieName)=\(session); HttpOnly; SameSite=Strict; Path=/" }

    /// The headers on every response: the content security policy (no inline script, nothing from elsewhere), no
    /// framing, no type sniffing, no referrer (the token is in the first URL), no caching.
    public static let headers: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; object-src 'none'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Permissions-Policy", "camera=(self), microphone=()"),
    ]

    // MARK: helpers

    /// The path and the query parameters of a request target (percent-decoded).
    public static func split(_ target: String) -> (path: String, query: [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "/")
        var query: [String: String] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = String(kv[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                let value =
                    kv.count > 1
                    ? (String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
                if query[key] == nil { query[key] = value }
            }
        }
        return (path, query)
    }

    /// The value of cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String) -> String? {
        for item in header.split(separator: ";") {
            let kv = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0] == name { return String(kv[1]) }
        }
        return nil
    }

    /// Compares two secrets in time independent of where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
