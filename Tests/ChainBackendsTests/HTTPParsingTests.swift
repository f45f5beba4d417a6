import ChainCore
import Testing

@testable import ChainBackends

@Suite("HTTP/1.1 response parsing")
struct HTTPParsingTests {
    @Test("Content-Length bodies")
    func contentLength() throws {
        let raw = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello".utf8)
        let response = try HTTPClient.parse(raw)
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.headers["x"] == "y")
    }

    @Test("chunked bodies")
    func chunked() throws {
        let raw = Array(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8)
        #expect(try HTTPClient.parse(raw).body == Array("hello world".utf8))
    }

    @Test("cut-short and non-HTTP responses are protocol violations")
    func broken() {
        #expect(throws: ChainError.self) {
            try HTTPClient.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhi".utf8))
        }
        #expect(throws: ChainError.self) { try HTTPClient.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) }
        #expect(throws: ChainError.self) { try HTTPClient.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 2".utf8)) }
    }
}
