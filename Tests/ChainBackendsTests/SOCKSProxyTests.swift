import NIOSOCKS
import Testing

@testable import ChainBackends

/// `node set … --proxy socks5h://HOST:PORT`: parsing, the onion rule, and what the proxy is asked for.
@Suite("SOCKS proxy settings")
struct SOCKSProxyTests {
    @Test("socks5h URLs parse; other schemes, missing or bad ports and extras are refused")
    func parsing() throws {
        #expect(try SOCKSProxy(string: "socks5h://127.0.0.1:9050") == SOCKSProxy(host: "127.0.0.1", port: 9050))
        #expect(try SOCKSProxy(string: " socks5h://tor.lan:9150 ").description == "socks5h://tor.lan:9150")
        for bad in [
            "socks5://127.0.0.1:9050", "http://127.0.0.1:8080", "socks5h://127.0.0.1", "socks5h://127.0.0.1:0",
            "socks5h://127.0.0.1:70000", "socks5h://u:p@127.0.0.1:9050", "socks5h://127.0.0.1:9050/x",
            "127.0.0.1:9050",
        ] {
            #expect(throws: ChainError.self, "\(bad)") { try SOCKSProxy(string: bad) }
        }
    }

    @Test("an onion host needs a proxy; with one it is passed on as a name, IP literals as addresses")
    func onion() throws {
        let onion = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcd.onion"
        #expect(SOCKSProxy.isOnion(onion) && SOCKSProxy.isOnion("X.ONION.") && !SOCKSProxy.isOnion("onion.example"))
        #expect(throws: ChainError.self) { try SOCKSProxy.check(host: onion, proxy: nil) }
        let proxy = SOCKSProxy(host: "127.0.0.1", port: 9050)
        try SOCKSProxy.check(host: onion, proxy: proxy)
        try SOCKSProxy.check(host: "electrum.example", proxy: nil)
        #expect(throws: ChainError.self) {
            try SOCKSProxy.check(host: String(repeating: "a", count: 256), proxy: proxy)
        }
        #expect(proxy.target(host: onion, port: 50001) == .domain(onion, port: 50001))
        #expect(proxy.target(host: "localhost", port: 1) == .domain("localhost", port: 1))
        guard case .address = proxy.target(host: "10.1.2.3", port: 8332) else {
            Issue.record("an IPv4 literal should go as an address")
            return
        }
        guard case .address = proxy.target(host: "::1", port: 8332) else {
            Issue.record("an IPv6 literal should go as an address")
            return
        }
    }
}
