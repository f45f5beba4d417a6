import Codecs
import Foundation
import TestSupport
import Testing

/// The one strict JSON parser (every server answer, every JSON the signer reads), against nst/JSONTestSuite's parsing
/// cases (Tests/Vectors/json/, copied byte for byte) and against Foundation's two parsers.
@Suite("JSON parser: JSONTestSuite and Foundation")
struct JSONTestSuiteTests {
    static func cases(_ prefix: String) throws -> [String] {
        let directory = try Vectors.directory().appendingPathComponent("json").path
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] { Array(try Vectors.data("json/" + name)) }

    static func accepts(_ bytes: [UInt8]) -> Bool { (try? JSONValue(json: bytes)) != nil }

    /// What the parser does with each implementation-defined (i_) case; docs/benchmarks.md gives the reasons.
    static let implementationDefined: [String: Bool] = [
        // Numbers are kept as their text, whatever their size (`double` is nil beyond Double's range).
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": true,
        "i_number_neg_int_huge_exp.json": true,
        "i_number_pos_double_huge_exp.json": true,
        "i_number_real_neg_overflow.json": true,
        "i_number_real_pos_overflow.json": true,
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

    /// The y_ cases that name a member twice: RFC 8259 allows them, this parser refuses them on purpose (readers
    /// disagree on which value counts).
    static let repeatedNames: Set<String> = ["y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"]

    @Test("every y_ case of JSONTestSuite is accepted, but for the two that name a member twice")
    func acceptsEveryY() throws {
        let names = try Self.cases("y_")
        #expect(names.count == 95)
        for name in names {
            #expect(Self.accepts(try Self.bytes(name)) == !Self.repeatedNames.contains(name), "\(name)")
        }
        #expect(throws: JSONError.duplicateMember(name: "a", offset: 9)) {
            try JSONValue(json: try Self.bytes("y_object_duplicated_key.json"))
        }
    }

    @Test("every n_ case of JSONTestSuite is refused, with the byte offset in the message")
    func refusesEveryN() throws {
        let names = try Self.cases("n_")
        #expect(names.count == 188)
        for name in names {
            do {
                _ = try JSONValue(json: try Self.bytes(name))
                Issue.record("\(name) accepted")
            } catch {
                guard case .malformed(_, let reason)? = error as? JSONError else {
                    Issue.record("\(name): \(error)")
                    continue
                }
                #expect(!reason.isEmpty && "\(error)".hasPrefix("not valid JSON (at byte "), "\(name): \(error)")
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

    @Test("on every y_ case the value equals what Foundation's JSONDecoder gives (the parser the sync once used)")
    func sameAsJSONDecoder() throws {
        for name in try Self.cases("y_") where !Self.repeatedNames.contains(name) {
            let bytes = try Self.bytes(name)
            let ours = try JSONValue(json: bytes)
            guard let foundation = try? JSONDecoder().decode(Decoded.self, from: Data(bytes)) else {
                // JSONDecoder refuses `[0e1]`, which RFC 8259 allows (zero with an exponent).
                #expect(name == "y_number_0e1.json" && ours == [.number("0e1")], "\(name): JSONDecoder refused it")
                continue
            }
            #expect(foundation.equals(ours), "\(name)")
        }
    }

    @Test("on every y_ case the value equals JSONSerialization's (but for a repeated name: ours refuses it)")
    func sameAsJSONSerialization() throws {
        for name in try Self.cases("y_") {
            let bytes = try Self.bytes(name)
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            guard !Self.repeatedNames.contains(name) else {
                // JSONSerialization keeps one of the two values; this parser refuses the text.
                #expect(!Self.accepts(bytes) && theirs is [String: Any], "\(name)")
                continue
            }
            let ours = try JSONValue(json: bytes)
            #expect(Self.equal(ours, theirs), "\(name): \(ours) vs \(theirs)")
        }
    }

    /// Foundation's JSONDecoder accepted some texts that are not JSON; the strict parser refuses them.
    @Test("texts Foundation's JSONDecoder accepted that RFC 8259 refuses: trailing commas, a BOM")
    func foundationLeniencyIsGone() throws {
        for text in ["[1,]", "{\"a\":1,}", "\u{FEFF}{}"] {
            let bytes = Array(text.utf8)
            #expect((try? JSONDecoder().decode(Decoded.self, from: Data(bytes))) != nil, "control: \(text)")
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

    @Test("numbers keep their text; `double` gives the nearest Double on request, nil beyond its range")
    func numbers() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("42", 42), ("-7", -7), ("0.1", 0.1), ("1E2", 100), ("1e-2", 0.01),
            ("123456789012345", 123_456_789_012_345), ("9007199254740993", 9_007_199_254_740_992),
            ("2100000000000000", 2_100_000_000_000_000), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("1e-400", 0),
        ]
        for (text, expected) in cases {
            let value = try JSONValue(json: Array(text.utf8))
            #expect(value == .number(text), "\(text)")
            #expect(value.double == expected, "\(text)")
            #expect(value.double?.sign == expected.sign, "\(text)")
        }
        // Exact: a 256-bit integer and a long fraction keep every digit; beyond Double's range only `double` is nil.
        let big = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        #expect(
            try JSONValue(json: "[\(big), 0.1000000000000000000001]") == [
                .number(big), .number("0.1000000000000000000001"),
            ])
        for text in ["1e309", "-1e309"] {
            #expect(try JSONValue(json: text) == .number(text) && JSONValue.number(text).double == nil, "\(text)")
        }
        #expect(try JSONValue(json: "9007199254740993").int == nil && JSONValue.number("1e3").int == 1000)
        #expect(JSONValue.number("1e3").intValue == nil && JSONValue.number("-12").intValue == -12)
        for text in [
            "01", "-01", "1.", ".1", "+1", "1e", "1e+", "-", "0x10", "1 2", "Infinity", "NaN",
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
            #expect(try JSONValue(json: Array(text.utf8)).string == expected, "\(text)")
        }
        let bad: [[UInt8]] = [
            Array(#""\uD834""#.utf8), Array(#""\uDD1E\uD834""#.utf8), Array(#""\uD834\u0041""#.utf8),
            Array(#""\x41""#.utf8), Array(#""\u12""#.utf8), Array("\"a\u{01}b\"".utf8), Array("\"a\tb\"".utf8),
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], Array("\"abc".utf8),
        ]
        for bytes in bad { #expect(!Self.accepts(bytes), "\(bytes)") }
    }

    @Test("objects: members keep their order; a repeated name is refused (control: distinct names); keys are strings")
    func objects() throws {
        #expect(throws: JSONError.duplicateMember(name: "a", offset: 13)) {
            try JSONValue(json: Array(#"{"a":1,"b":2,"a":3}"#.utf8))
        }
        #expect(try JSONValue(json: Array(#"{"b":1,"a":2,"c":3}"#.utf8)).keys == ["b", "a", "c"])
        // Past eight members the check goes through a set: the same refusal, the same control.
        let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(try JSONValue(json: "{\(many)}").keys.count == 20)
        #expect(throws: JSONError.self) { try JSONValue(json: "{\(many),\"k3\":0}") }
        #expect(!Self.accepts(Array(#"{1:2}"#.utf8)))
        #expect(!Self.accepts(Array(#"{"a" 1}"#.utf8)))
        #expect(
            try JSONValue(json: Array(" \t\r\n{ \"a\" : [ true , false , null ] } \n".utf8))["a"]
                == JSONValue.array([true, false, .null]))
    }

    @Test("any contiguous or non-contiguous collection of bytes parses alike")
    func collections() throws {
        let text = Array(#"{"id":7,"result":["ab",1.5]}"#.utf8)
        let fromArray = try JSONValue(json: text)
        #expect(try JSONValue(json: text.lazy.map { $0 }) == fromArray)  // not contiguous
        #expect(try JSONValue(json: ArraySlice(text)) == fromArray)
        #expect(fromArray["id"]?.int == 7 && fromArray["result"]?.array?[1].double == 1.5)
    }

    @Test("serializing: every y_ case survives parse → serialize → parse, and JSONSerialization reads our text alike")
    func roundTrip() throws {
        for name in try Self.cases("y_") where !Self.repeatedNames.contains(name) {
            let value = try JSONValue(json: try Self.bytes(name))
            let text = value.serialized()
            #expect(try JSONValue(json: text) == value, "\(name)")
            let theirs = try JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed])
            #expect(Self.equal(value, theirs), "\(name)")
        }
    }

    @Test("serializing: members in order (a dictionary's sorted), RFC 8259 escapes, numbers as written")
    func serializedForm() throws {
        let value: JSONValue = .object([
            "b": .array([.number(2), .number(-0.5), .number(1e20), .number(.infinity), .null, true]),
            "a": .string("q\"s\\/\n\u{01}é"), "id": .number(7),
        ])
        #expect(
            String(decoding: value.serialized(), as: UTF8.self)
                == #"{"a":"q\"s\\/\n\u0001é","b":[2,-0.5,1e+20,null,null,true],"id":7}"#)
        let text = #"{"z":1.50,"a":[1E+2,-0]}"#
        #expect(String(decoding: try JSONValue(json: text).serialized(), as: UTF8.self) == text)
    }

    /// JSONSerialization's value against ours: numbers by value, booleans as booleans.
    static func equal(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let b):
            return (theirs as? Bool) == b
        case .number:
            guard let n = theirs as? NSNumber, let d = ours.double else { return false }
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

/// A JSON value as Foundation's `JSONDecoder` reads it (numbers as `Double`, objects as dictionaries), for the
/// differential test.
private enum Decoded: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Decoded])
    case object([String: Decoded])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([Decoded].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: Decoded].self))
        }
    }

    /// Whether our value is the same: numbers by their nearest `Double`, objects by name.
    func equals(_ ours: JSONValue) -> Bool {
        switch (self, ours) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number): a == ours.double && a.sign == ours.double?.sign
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.equals($1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && b.allSatisfy { name, value in a[name]?.equals(value) ?? false }
        default: false
        }
    }
}
