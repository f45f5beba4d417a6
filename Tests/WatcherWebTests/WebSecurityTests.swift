import Testing
import WatcherWeb

/// The guard of `airlock-watcher serve` (issue 29 item 2): each refusal beside the request that passes.
@Suite("WebSecurity")
struct WebSecurityTests {
    let guardian = WebSecurity(port: 8765, token: "t0ken", session: "s3ssion", csrf: "csrf7")
    let host = ["host": "127.0.0.1:8765"]
    var loggedIn: [String: String] { host.merging(["cookie": "other=1; airlock_session=s3ssion"]) { $1 } }

    @Test("only loopback addresses are listened on")
    func listen() throws {
        #expect(try WebSecurity.listenAddress(nil) == "127.0.0.1")
        #expect(try WebSecurity.listenAddress("localhost") == "127.0.0.1")
        #expect(try WebSecurity.listenAddress("::1") == "::1")
        for refused in ["0.0.0.0", "::", "10.0.0.1", "127.0.0.2", "example.com", ""] {
            #expect(throws: WebSecurity.ListenRefused.self) { try WebSecurity.listenAddress(refused) }
        }
    }

    @Test("the token logs in once and only the right one")
    func token() {
        #expect(guardian.check(method: "GET", target: "/?token=t0ken", headers: host) == .login(location: "/"))
        #expect(
            guardian.check(method: "GET", target: "/?token=t0kem", headers: host)
                == .refuse(status: 401, reason: "wrong token: open the URL airlock-watcher serve printed"))
        guard case .refuse(401, _) = guardian.check(method: "GET", target: "/api/overview", headers: host) else {
            Issue.record("no cookie passed")
            return
        }
        let wrongCookie = host.merging(["cookie": "airlock_session=s3ssiom"]) { $1 }
        guard case .refuse(401, _) = guardian.check(method: "GET", target: "/", headers: wrongCookie) else {
            Issue.record("a wrong cookie passed")
            return
        }
        #expect(guardian.check(method: "GET", target: "/api/overview", headers: loggedIn) == .allow)
        #expect(guardian.setCookie.contains("HttpOnly") && guardian.setCookie.contains("SameSite=Strict"))
    }

    @Test("another Host is refused before anything else")
    func hostHeader() {
        for bad in ["evil.example:8765", "127.0.0.1:8766", "127.0.0.1", "attacker.127.0.0.1.nip.io:8765"] {
            let headers = loggedIn.merging(["host": bad]) { $1 }
            guard case .refuse(421, _) = guardian.check(method: "GET", target: "/?token=t0ken", headers: headers) else {
                Issue.record("\(bad) passed")
                continue
            }
        }
        for good in ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST:8765"] {
            #expect(
                guardian.check(method: "GET", target: "/", headers: loggedIn.merging(["host": good]) { $1 }) == .allow)
        }
    }

    @Test("a state-changing request needs this origin and the CSRF token")
    func csrf() {
        let good = loggedIn.merging(["origin": "http://127.0.0.1:8765", "x-airlock-csrf": "csrf7"]) { $1 }
        #expect(guardian.check(method: "POST", target: "/api/labels", headers: good) == .allow)
        let attacks: [[String: String]] = [
            good.merging(["origin": "http://evil.example"]) { $1 },
            good.merging(["origin": "http://127.0.0.1:9999"]) { $1 },
            good.merging(["origin": "https://127.0.0.1:8765"]) { $1 },
            good.merging(["x-airlock-csrf": "csrf8"]) { $1 },
            good.filter { $0.key != "origin" },
            good.filter { $0.key != "x-airlock-csrf" },
        ]
        for headers in attacks {
            guard case .refuse(403, _) = guardian.check(method: "POST", target: "/api/labels", headers: headers) else {
                Issue.record("passed: \(headers)")
                continue
            }
        }
    }

    @Test("every response's headers forbid inline script, framing and sniffing")
    func headers() {
        let names = Dictionary(WebSecurity.headers, uniquingKeysWith: { a, _ in a })
        #expect(names["Content-Security-Policy"]?.hasPrefix("default-src 'self'") == true)
        #expect(names["Content-Security-Policy"]?.contains("unsafe-inline") == false)
        #expect(names["X-Frame-Options"] == "DENY")
        #expect(names["X-Content-Type-Options"] == "nosniff")
    }
}
