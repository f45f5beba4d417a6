import ChainCore
import Testing

@testable import ChainBackends

@Suite("Node URLs (docs/architecture.md section 2)")
struct NodeURLTests {
    @Test("each scheme parses")
    func schemes() throws {
        #expect(
            try NodeURL(string: "electrum://127.0.0.1:50001") == .electrum(host: "127.0.0.1", port: 50001, tls: nil))
        #expect(
            try NodeURL(string: "electrums://example.org:50002?insecure=1")
                == .electrum(host: "example.org", port: 50002, tls: .init(insecure: true)))
        #expect(
            try NodeURL(string: "bitcoind://alice:s3cret@127.0.0.1:18443/watch")
                == .bitcoind(
                    host: "127.0.0.1", port: 18443, auth: .password(user: "alice", password: "s3cret"), wallet: "watch")
        )
        #expect(
            try NodeURL(string: "bitcoind://127.0.0.1:18443?cookie=/tmp/.cookie")
                == .bitcoind(host: "127.0.0.1", port: 18443, auth: .cookie(path: "/tmp/.cookie"), wallet: nil))
        #expect(
            try NodeURL(string: "esplora+https://blockstream.info/api/")
                == .esplora(host: "blockstream.info", port: 443, basePath: "/api", tls: .init()))
        #expect(
            try NodeURL(string: "esplora+http://127.0.0.1:3000")
                == .esplora(host: "127.0.0.1", port: 3000, basePath: "", tls: nil))
    }

    @Test(
        "bad URLs are refused with a reason",
        arguments: [
            "ftp://host:21", "127.0.0.1:50001", "electrum://127.0.0.1", "electrum://:50001",
            "bitcoind://127.0.0.1:8332",
            "electrum://127.0.0.1:99999",
        ])
    func invalid(text: String) {
        #expect(throws: ChainError.self) { try NodeURL(string: text) }
    }

    @Test("the description hides the password")
    func description() throws {
        let url = try NodeURL(string: "bitcoind://alice:s3cret@127.0.0.1:18443")
        #expect(!url.description.contains("s3cret"))
    }
}
