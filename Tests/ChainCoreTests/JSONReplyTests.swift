import ChainCore
import Codecs
import Testing

/// A server's answer through Codecs' one parser: what ChainCore adds is the refusal as `ChainError`, with the reason,
/// the offset and the start of the text (the parser itself is tested in CodecsTests against JSONTestSuite).
@Suite("Server answers as JSON")
struct JSONReplyTests {
    @Test("malformed text and a repeated member name become protocol violations naming why and where")
    func refusals() throws {
        #expect(try JSONValue.parse(Array(#"{"id":7,"result":[1.5]}"#.utf8))["id"]?.int == 7)  // control
        do {
            _ = try JSONValue.parse(Array("[1,]".utf8))
            Issue.record("accepted")
        } catch {
            #expect(error == .protocolViolation("not JSON (not the start of a value at byte 3): [1,]"))
        }
        do {
            _ = try JSONValue.parse(Array(#"{"id":1,"id":2}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error == .protocolViolation(#"not JSON (the member "id" named twice at byte 8): {"id":1,"id":2}"#))
        }
    }
}
