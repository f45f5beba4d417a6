import Foundation
import TestSupport
import Testing

@testable import ChainCore

/// The strict JSON parser that reads every server answer, against nst/JSONTestSuite's parsing cases
/// (Tests/Vectors/json/, copied byte for byte) and against Foundation's two parsers.
@Suite("JSON parser: JSONTestSuite and Foundation")
struct JSONParserTests {
    static func cases(_ prefix: String) throws -> [String] {
        let directory = try Vectors.directory().appendingPathComponent("json").path
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] { Array(try Vectors.data("json/" + name)) }

    static func accepts(_ bytes: [UInt8]) -> Bool { (try? JSONValue.parse(bytes)) != nil }

    /// What the parser does with each implementation-defined (i_) case; docs/benchmarks.md gives the reasons.
    static let implementationDefined: [String: Bool] = [
        // Numbers: a value beyond Double's range is refused; one that underflows becomes 0; large integers round.
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": false,
        "i_number_neg_int_huge_exp.json": false,
        "i_number_pos_double_huge_exp.json": false,
        "i_number_real_neg_overflow.json": false,
        "i_number_real_pos_overflow.json": false,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        // Lone, reversed or incomplete surrogates are refused: a Swift string cannot hold them.
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_lone_second_surrogate.json": false,
        // Only UTF-8 is read, strictly: invalid, overlong, truncated, surrogate-encoding sequences, other encodings,
        // and a byte order mark are refused.
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        "i_structure_UTF-8_BOM_empty_object.json": false,
        // Deeper than JSONValue.maxDepth (64).
        "i_structure_500_nested_arrays.json": false,
    ]

    @Test("every y_ case of JSONTestSuite is accepted")
    func acceptsEveryY() throws {
        let names = try Self.cases("y_")
        #expect(names.count == 95)
        for name in names {
            #expect(Self.accepts(try Self.bytes(name)), "\(name) refused")
        }
    }

    @Test("every n_ case of JSONTestSuite is refused, with the byte offset in the message")
    func refusesEveryN() throws {
        let names = try Self.cases("n_")
        #expect(names.count == 188)
        for name in names {
            do {
                _ = try JSONValue.parse(try Self.bytes(name))
                Issue.record("\(name) accepted")
            } catch {
                guard case .protocolViolation(let why)? = error as? ChainError else {
                    Issue.record("\(name): \(error)")
                    continue
                }
                #expect(why.hasPrefix("not JSON (") && why.contains(" at byte "), "\(name): \(why)")
            }
        }
    }

    @Test("every i_ case is accepted or refused as documented")
    func implementationDefinedCases() throws {
        let names = try Self.cases("i_")
        #expect(Set(names) == Set(Self.implementationDefined.keys))
        for name in names {
            #expect(Self.accepts(try Self.bytes(name)) == Self.implementationDefined[name], "\(name)")
        }
    }

    @Test("on every y_ case the value equals what Foundation's JSONDecoder gave (the parser it replaces)")
    func sameAsJSONDecoder() throws {
        for name in try Self.cases("y_") {
            let bytes = try Self.bytes(name)
            let ours = try JSONValue.parse(bytes)
            guard let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
                // JSONDecoder refuses `[0e1]`, which RFC 8259 allows (zero with an exponent).
                #expect(name == "y_number_0e1.json" && ours == [0], "\(name): JSONDecoder refused it")
                continue
            }
            #expect(ours == foundation, "\(name)")
        }
    }

    @Test("on every y_ case the value equals JSONSerialization's (but for a repeated key: ours keeps the first)")
    func sameAsJSONSerialization() throws {
        for name in try Self.cases("y_") {
            let bytes = try Self.bytes(name)
            let ours = try JSONValue.parse(bytes)
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            let same = Self.equal(ours, theirs)
            if name == "y_object_duplicated_key.json" {
                #expect(!same && ours == ["a": "b"].json, "\(name)")
            } else {
                #expect(same, "\(name): \(ours) vs \(theirs)")
            }
        }
    }

    /// Foundation's JSONDecoder accepted some texts that are not JSON; the strict parser refuses them.
    @Test("texts Foundation's JSONDecoder accepted that RFC 8259 refuses: trailing commas, a BOM")
    func foundationLeniencyIsGone() throws {
        for text in ["[1,]", "{\"a\":1,}", "\u{FEFF}{}"] {
            let bytes = Array(text.utf8)
            #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) != nil, "control: \(text)")
            #expect(!Self.accepts(bytes), "\(text)")
        }
    }

    @Test("nesting: 64 levels accepted, 65 refused (arrays and objects)")
    func depthLimit() {
        let deepest = JSONValue.maxDepth
        #expect(
            Self.accepts(Array((String(repeating: "[", count: deepest) + String(repeating: "]", count: deepest)).utf8)))
        #expect(
            !Self.accepts(
                Array((String(repeating: "[", count: deepest + 1) + String(repeating: "]", count: deepest + 1)).utf8)))
        let objects = { (n: Int) in
            Array((String(repeating: "{\"a\":", count: n) + "1" + String(repeating: "}", count: n)).utf8)
        }
        #expect(Self.accepts(objects(deepest)))
        #expect(!Self.accepts(objects(deepest + 1)))
        #expect(!Self.accepts(Array(String(repeating: "[", count: 100_000).utf8)))
    }

    @Test("numbers become the nearest Double; exact integers stay exact; out of range is refused")
    func numbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("42", 42), ("-7", -7), ("0.1", 0.1), ("1E2", 100), ("1e-2", 0.01),
            ("123456789012345", 123_456_789_012_345), ("9007199254740993", 9_007_199_254_740_992),
            ("2100000000000000", 2_100_000_000_000_000), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("1e-400", 0),
        ]
        for (text, expected) in cases {
            let value = try JSONValue.parse(Array(text.utf8))
            #expect(value.double == expected, "\(text)")
            #expect(value.double?.sign == expected.sign, "\(text)")
        }
        for text in [
            "1e309", "-1e309", "01", "-01", "1.", ".1", "+1", "1e", "1e+", "-", "0x10", "1 2", "Infinity", "NaN",
        ] {
            #expect(!Self.accepts(Array(text.utf8)), "\(text)")
        }
    }

    @Test("strings: escapes and surrogate pairs decode; lone surrogates, control characters, bad UTF-8 refused")
    func strings() throws {
        let good: [(String, String)] = [
            (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{08}\u{0C}\n\r\t"),
            (#""\u00e9\u20AC\uD834\uDD1E""#, "é€𝄞"), ("\"é€𝄞\u{7F}\"", "é€𝄞\u{7F}"), (#""""#, ""),
        ]
        for (text, expected) in good {
            #expect(try JSONValue.parse(Array(text.utf8)).string == expected, "\(text)")
        }
        let bad: [[UInt8]] = [
            Array(#""\uD834""#.utf8), Array(#""\uDD1E\uD834""#.utf8), Array(#""\uD834\u0041""#.utf8),
            Array(#""\x41""#.utf8), Array(#""\u12""#.utf8), Array("\"a\u{01}b\"".utf8), Array("\"a\tb\"".utf8),
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], Array("\"abc".utf8),
        ]
        for bytes in bad { #expect(!Self.accepts(bytes), "\(bytes)") }
    }

    @Test("objects: a repeated key keeps its first value; keys must be strings")
    func objects() throws {
        #expect(try JSONValue.parse(Array(#"{"a":1,"b":2,"a":3}"#.utf8)) == ["a": 1, "b": 2].json)
        #expect(!Self.accepts(Array(#"{1:2}"#.utf8)))
        #expect(!Self.accepts(Array(#"{"a" 1}"#.utf8)))
        #expect(
            try JSONValue.parse(Array(" \t\r\n{ \"a\" : [ true , false , null ] } \n".utf8))["a"]
                == JSONValue.array([true, false, .null]))
    }

    @Test("any contiguous or non-contiguous collection of bytes parses alike")
    func collections() throws {
        let text = Array(#"{"id":7,"result":["ab",1.5]}"#.utf8)
        let fromArray = try JSONValue.parse(text)
        #expect(try JSONValue.parse(text.lazy.map { $0 }) == fromArray)  // not contiguous
        #expect(try JSONValue.parse(ArraySlice(text)) == fromArray)
        #expect(fromArray["id"]?.int == 7 && fromArray["result"]?.array?[1].double == 1.5)
    }

    @Test("serializing: every y_ case survives parse → serialize → parse, and JSONSerialization reads our text alike")
    func roundTrip() throws {
        for name in try Self.cases("y_") {
            let value = try JSONValue.parse(try Self.bytes(name))
            let text = value.serialized()
            #expect(try JSONValue.parse(text) == value, "\(name)")
            let theirs = try JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed])
            #expect(Self.equal(value, theirs), "\(name)")
        }
    }

    @Test("serializing: sorted keys, RFC 8259 escapes, integers as integers, a non-finite number as null")
    func serializedForm() {
        let value: JSONValue = .object([
            "b": .array([.number(2), .number(-0.5), .number(1e20), .number(.infinity), .null, true]),
            "a": .string("q\"s\\/\n\u{01}é"), "id": .number(7),
        ])
        #expect(
            String(decoding: value.serialized(), as: UTF8.self)
                == #"{"a":"q\"s\\/\n\u0001é","b":[2,-0.5,1e+20,null,null,true],"id":7}"#)
    }

    /// JSONSerialization's value against ours: numbers by value, booleans as booleans.
    static func equal(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let b):
            return (theirs as? Bool) == b
        case .number(let d):
            guard let n = theirs as? NSNumber else { return false }
            // A long fraction comes as an NSDecimalNumber, whose doubleValue is not the nearest double: its text is.
            return n.doubleValue == d || Double(n.description) == d
        case .string(let s): return (theirs as? String) == s
        case .array(let items):
            guard let t = theirs as? [Any], t.count == items.count else { return false }
            return zip(items, t).allSatisfy { equal($0, $1) }
        case .object(let members):
            guard let t = theirs as? [String: Any], t.count == members.count else { return false }
            return members.allSatisfy { key, value in t[key].map { equal(value, $0) } ?? false }
        }
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    fileprivate var json: JSONValue { .object(self) }
}
