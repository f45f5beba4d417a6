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

    @Test("a member is found by its exact bytes: among names of the same length, and not by a canonically equal name")
    func lookup() throws {
        let value = try JSONValue(json: #"{"jsonrpc": "2.0", "id": 7, "ie": 8, "result": {"pos": 3}, "caf\u00e9": 1}"#)
        // Controls: each name finds its own member, also beside a name of the same length ("id", "ie").
        #expect(value["id"]?.int == 7 && value["ie"]?.int == 8)
        #expect(value["result"]?["pos"]?.int == 3 && value["jsonrpc"]?.string == "2.0")
        #expect(value["caf\u{E9}"]?.int == 1)
        // Bad cases: a name that is only canonically equal ("e" and a combining accent), a prefix, a longer name,
        // and a name of the same length that differs in its last byte are not members.
        #expect(value["cafe\u{301}"] == nil)
        // The same, at the same length: two combining marks in either order are canonically equal, not the same bytes.
        let marks = try JSONValue(json: #"{"a\u0301\u0316": 1}"#)
        #expect("a\u{316}\u{301}" == "a\u{301}\u{316}")
        #expect(marks["a\u{316}\u{301}"] == nil && marks["a\u{301}\u{316}"]?.int == 1)
        #expect(value["i"] == nil && value["idx"] == nil && value["resulT"] == nil)
        #expect(JSONValue.array([1])["id"] == nil)
        // A long name (a heap string, not a small one) is compared the same way.
        let long = String(repeating: "n", count: 40)
        let object = try JSONValue(json: "{\"\(long)x\": 1, \"\(long)\": 2}")
        #expect(object[long]?.int == 2 && object[long + "x"]?.int == 1 && object[long + "y"] == nil)
    }

    @Test("nested objects and arrays keep their members and items, and a repetition after a nested object is found")
    func nesting() throws {
        let text = #"{"a": [1, {"b": 2, "c": [3, []]}, {}], "d": {"e": {"f": null}}, "g": [[{"h": true}]]}"#
        let expected: JSONValue = .object([
            ("a", [1, .object([("b", 2), ("c", [3, []])]), .object([])]),
            ("d", .object([("e", .object([("f", .null)]))])),
            ("g", [[.object([("h", true)])]]),
        ])
        #expect(try JSONValue(json: text) == expected)
        // Bad case: the repeated name comes after a nested object whose own members were read in between.
        #expect(throws: JSONError.duplicateMember(name: "a", offset: 24)) {
            try JSONValue(json: #"{"a": {"x": 1, "y": 2}, "a": 3}"#)
        }
        // Control: the nested object's names ("x") are not the outer object's.
        #expect(try JSONValue(json: #"{"a": {"x": 1, "y": 2}, "x": 3}"#)["x"]?.int == 3)
    }

    @Test("integers are read from their digits: heights and ids, 18 digits, and beyond that through the full parser")
    func integers() throws {
        // Controls.
        #expect(JSONValue.number("0").int == 0 && JSONValue.number("-0").int == 0)
        #expect(JSONValue.number("850123").int == 850_123 && JSONValue.number("-1").int == -1)
        #expect(JSONValue.number("8999999999999999").int == 8_999_999_999_999_999)
        #expect(JSONValue.number("123456789012345678").intValue == 123_456_789_012_345_678)
        #expect(JSONValue.number("9223372036854775807").intValue == Int.max)
        #expect(JSONValue.number("5.0").int == 5 && JSONValue.number("1e3").int == 1000)
        // Bad cases: beyond ±9·10^15, beyond Int, a fraction, not a number.
        #expect(JSONValue.number("9000000000000000").int == nil)
        #expect(JSONValue.number("123456789012345678").int == nil)
        #expect(JSONValue.number("9223372036854775808").intValue == nil)
        #expect(JSONValue.number("1.5").int == nil && JSONValue.number("1.5").intValue == nil)
        #expect(JSONValue.number("-").int == nil && JSONValue.string("7").int == nil)
    }

    @Test("strings read eight bytes at a time stop at a quote, backslash, control or non-ASCII byte wherever it is")
    func stringScan() throws {
        let plain = String(repeating: "0123456789abcdef", count: 3)
        for position in 0...plain.utf8.count {
            let head = String(plain.prefix(position))
            let tail = String(plain.dropFirst(position))
            // Controls: the plain string, an escape and a non-ASCII character at each position.
            #expect(try JSONValue(json: "\"\(plain)\"").string == plain)
            #expect(try JSONValue(json: "\"\(head)\\n\(tail)\"").string == head + "\n" + tail)
            #expect(try JSONValue(json: "\"\(head)\\\"\(tail)\"").string == head + "\"" + tail)
            #expect(try JSONValue(json: "\"\(head)é\(tail)\"").string == head + "é" + tail)
            #expect(try JSONValue(json: "\"\(head)\u{7F}~ \(tail)\"").string == head + "\u{7F}~ " + tail)
            // Bad cases: a raw control character, a byte that is not UTF-8, a quote that ends the string early.
            for control: UInt8 in [0x00, 0x09, 0x0A, 0x1F] {
                let bytes = Array("\"\(head)".utf8) + [control] + Array("\(tail)\"".utf8)
                #expect(throws: JSONError.self) { try JSONValue(json: bytes) }
            }
            #expect(throws: JSONError.self) {
                try JSONValue(json: Array("\"\(head)".utf8) + [0xFF] + Array("\(tail)\"".utf8))
            }
            if position < plain.utf8.count {
                #expect(throws: JSONError.self) { try JSONValue(json: "\"\(head)\"\(tail)\"") }
            }
        }
    }
}
