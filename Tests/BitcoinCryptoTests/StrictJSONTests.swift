import BitcoinCrypto
import Testing

/// The one strict JSON parser of the signer (docs/threat-model.md, "Strict inputs"): a member named twice is refused
/// at any depth; the same text without the repetition parses (the control).
@Suite("Strict JSON")
struct StrictJSONTests {
    @Test("A repeated member name is refused at the top level, nested in an object, and inside an array")
    func duplicates() throws {
        #expect(throws: StrictJSONError.duplicateMember(name: "a", offset: 9)) {
            try StrictJSON(json: #"{"a": 1, "a": 2}"#)
        }
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: #"{"x": {"b": true, "c": 1, "b": false}}"#) }
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: #"[{"k": "1"}, {"k": "2", "k": "3"}]"#) }
        // Written with an escape, the same name is still the same name.
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: #"{"spender": 1, "sp\u0065nder": 2}"#) }
        // Controls: the same documents without the repetition parse, keeping member order and number literals.
        let top = try StrictJSON(json: #"{"a": 1, "b": 2}"#)
        #expect(top.keys == ["a", "b"])
        #expect(top["b"] == .number("2"))
        let nested = try StrictJSON(json: #"{"x": {"b": true, "c": 1, "d": false}}"#)
        #expect(nested["x"]?["d"]?.boolValue == false)
        let array = try StrictJSON(json: #"[{"k": "1"}, {"k": "2", "j": "3"}]"#)
        #expect(array.arrayValue?.count == 2)
        // The same name in two different objects is not a repetition.
        #expect(try StrictJSON(json: #"{"a": {"a": {"a": 1}}}"#)["a"]?["a"]?["a"]?.intValue == 1)
    }

    @Test("Malformed JSON is refused with its offset; the message names the repeated member")
    func malformed() throws {
        #expect(throws: StrictJSONError.malformed(offset: 1)) { try StrictJSON(json: "[}") }
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: #"{"a": 1,}"#) }
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: "{\"a\": 1} x") }
        #expect(throws: StrictJSONError.self) { try StrictJSON(json: String(repeating: "[", count: 70)) }
        let error = StrictJSONError.duplicateMember(name: "\u{202E}evil", offset: 3)
        #expect(error.description.contains(#"\u202eevil"#))
        #expect(!error.description.contains("\u{202E}"))
        #expect(try StrictJSON(json: String(repeating: "[", count: 60) + String(repeating: "]", count: 60)) != .null)
    }
}
