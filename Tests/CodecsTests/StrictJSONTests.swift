import Codecs
import Testing

/// The one strict JSON parser (the signer's and the watcher's) (docs/threat-model.md, "Strict inputs"): a member named twice is refused
/// at any depth; the same text without the repetition parses (the control).
@Suite("Strict JSON")
struct JSONValueTests {
    @Test("A repeated member name is refused at the top level, nested in an object, and inside an array")
    func duplicates() throws {
        #expect(throws: JSONError.duplicateMember(name: "a", offset: 9)) {
            try JSONValue(json: #"{"a": 1, "a": 2}"#)
        }
        #expect(throws: JSONError.self) { try JSONValue(json: #"{"x": {"b": true, "c": 1, "b": false}}"#) }
        #expect(throws: JSONError.self) { try JSONValue(json: #"[{"k": "1"}, {"k": "2", "k": "3"}]"#) }
        // Written with an escape, the same name is still the same name.
        #expect(throws: JSONError.self) { try JSONValue(json: #"{"spender": 1, "sp\u0065nder": 2}"#) }
        // Controls: the same documents without the repetition parse, keeping member order and number literals.
        let top = try JSONValue(json: #"{"a": 1, "b": 2}"#)
        #expect(top.keys == ["a", "b"])
        #expect(top["b"] == .number("2"))
        let nested = try JSONValue(json: #"{"x": {"b": true, "c": 1, "d": false}}"#)
        #expect(nested["x"]?["d"]?.boolValue == false)
        let array = try JSONValue(json: #"[{"k": "1"}, {"k": "2", "j": "3"}]"#)
        #expect(array.arrayValue?.count == 2)
        // The same name in two different objects is not a repetition.
        #expect(try JSONValue(json: #"{"a": {"a": {"a": 1}}}"#)["a"]?["a"]?["a"]?.intValue == 1)
    }

    @Test("Malformed JSON is refused with its offset; the message names the repeated member")
    func malformed() throws {
        #expect(throws: JSONError.malformed(offset: 1, reason: "not the start of a value")) {
            try JSONValue(json: "[}")
        }
        #expect(throws: JSONError.self) { try JSONValue(json: #"{"a": 1,}"#) }
        #expect(throws: JSONError.self) { try JSONValue(json: "{\"a\": 1} x") }
        #expect(throws: JSONError.self) { try JSONValue(json: String(repeating: "[", count: 70)) }
        let error = JSONError.duplicateMember(name: "\u{202E}evil", offset: 3)
        #expect(error.description.contains(#"\u202eevil"#))
        #expect(!error.description.contains("\u{202E}"))
        #expect(try JSONValue(json: String(repeating: "[", count: 60) + String(repeating: "]", count: 60)) != .null)
    }
}
