import Codecs
import Foundation
import TestSupport
import Testing

/// `JSONDocument`, the parse read in place that the Electrum client uses for every server answer, against an
/// independent oracle: Foundation's `JSONSerialization` on the same bytes (values, escapes, numbers, nesting), and
/// against `JSONValue(json:)` for what it refuses (the same error, offset and reason, on JSONTestSuite's cases, on
/// answers shaped like an Electrum server's, and on thousands of texts made at random and broken at random).
@Suite("JSON read in place (JSONDocument) against JSONSerialization")
struct JSONDocumentTests {
    /// The outcome of parsing `bytes` both ways: the same error, or a document whose value is `JSONValue`'s.
    static func agree(_ bytes: [UInt8], _ comment: Comment? = nil) -> JSONDocument? {
        let value: Result<JSONValue, JSONError> = Result { () throws(JSONError) in try JSONValue(json: bytes) }
        let document: Result<JSONDocument, JSONError> = Result { () throws(JSONError) in try JSONDocument(json: bytes) }
        switch (value, document) {
        case (.success(let value), .success(let document)):
            #expect(document.root.value == value, comment)
            return document
        case (.failure(let a), .failure(let b)):
            #expect(a == b, comment)
        default:
            Issue.record("one parse accepted what the other refused: \(String(decoding: bytes, as: UTF8.self))")
        }
        return nil
    }

    /// Whether the element reads give what JSONSerialization reads from the same bytes.
    ///
    /// `string`, `withUTF8`, `int`, `isNull`, `array` and members by name, compared without `JSONValue`.
    static func matches(_ element: JSONElement, _ theirs: Any) -> Bool {
        if element.isNull { return theirs is NSNull }
        if let text = element.string {
            let bytes = element.withUTF8 { Array($0) }
            return (theirs as? String) == text && bytes == Array(text.utf8)
        }
        if let items = element.array {
            guard let t = theirs as? [Any], t.count == items.count else { return false }
            return zip(items, t).allSatisfy { matches($0, $1) }
        }
        if case .object(let members) = element.value {
            guard let t = theirs as? [String: Any], t.count == members.count else { return false }
            return members.allSatisfy { name, _ in
                guard let member = element[name], let their = t[name] else { return false }
                return matches(member, their)
            }
        }
        if case .bool(let b) = element.value { return (theirs as? Bool) == b && element.int == nil }
        // A number: by value, and `int` is JSONSerialization's integer when it is one (within ±9·10^15).
        guard let n = theirs as? NSNumber, case .number(let text) = element.value, let d = Double(text) else {
            return false
        }
        let sameValue = n.doubleValue == d || Double(n.description) == d
        if let int = element.int { return sameValue && Double(int) == d }
        return sameValue && !(d.rounded() == d && abs(d) < 9e15)
    }

    static func oracle(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    @Test(
        "JSONTestSuite: every case parses or is refused as JSONValue does, with the same error; values as JSONSerialization's"
    )
    func testSuite() throws {
        var compared = 0
        for prefix in ["y_", "n_", "i_"] {
            for name in try JSONTestSuiteTests.cases(prefix) {
                let bytes = try JSONTestSuiteTests.bytes(name)
                guard let document = Self.agree(bytes, "\(name)") else { continue }
                guard let theirs = Self.oracle(bytes), !JSONTestSuiteTests.repeatedNames.contains(name) else {
                    continue
                }
                #expect(Self.matches(document.root, theirs), "\(name)")
                compared += 1
            }
        }
        // Control: the oracle was asked about every y_ case but the two with a repeated name.
        #expect(compared >= 93)
    }

    @Test("Electrum answers: hashes, heights and hex read in place, also written with escapes; members by exact name")
    func electrumAnswers() throws {
        let hash = String(repeating: "ab", count: 32)
        let text = """
            [{"id":7,"jsonrpc":"2.0","result":{"block_height":1234,"merkle":["\(hash)","\\u0061b\(hash.dropFirst(2))"],\
            "pos":5}},{"id":8,"jsonrpc":"2.0","result":[{"height":-1,"tx_hash":"\(hash)"},{"height":1e3,\
            "tx_hash":"x"}]},{"id":9,"jsonrpc":"2.0","error":{"code":-32600,"message":"caf\\u00e9 \\"q\\""}}]
            """
        let bytes = Array(text.utf8)
        let document = try #require(Self.agree(bytes))
        let theirs = try #require(Self.oracle(bytes))
        #expect(Self.matches(document.root, theirs))
        let answers = try #require(document.root.array)
        #expect(answers.map { $0["id"]?.int } == [7, 8, 9])
        let merkle = try #require(answers[0]["result"]?["merkle"]?.array)
        // The escaped hash reads as the same text and the same bytes as the plain one.
        #expect(merkle[0].string == hash && merkle[1].string == hash)
        #expect(merkle[1].withUTF8 { Array($0) } == Array(hash.utf8))
        #expect(answers[0]["result"]?["block_height"]?.int == 1234 && answers[0]["result"]?["pos"]?.int == 5)
        let history = try #require(answers[1]["result"]?.array)
        #expect(history[0]["height"]?.int == -1 && history[1]["height"]?.int == 1000)
        #expect(answers[2]["error"]?["message"]?.string == "café \"q\"")
        #expect(answers[2]["error"]?["code"]?.int == -32600)
        // Bad cases: absent names, a prefix, another case, a name of a member of another object, and reads of the
        // wrong kind are nil.
        #expect(answers[0]["resul"] == nil && answers[0]["Result"] == nil && answers[0]["pos"] == nil)
        #expect(answers[0]["id"]?.string == nil && answers[0]["jsonrpc"]?.int == nil && answers[0].array == nil)
        #expect(answers[0]["result"]?["merkle"]?["pos"] == nil)
        #expect(merkle[0].withUTF8 { _ in true } == true && answers[0]["id"]?.withUTF8 { _ in true } == nil)
    }

    @Test("numbers: integers from their digits and beyond, exponents and fractions as JSONValue.int reads them")
    func numbers() throws {
        let cases = [
            "0", "-0", "7", "-1", "123456789012345678", "-123456789012345678", "1234567890123456789",
            "9000000000000000", "8999999999999999", "-8999999999999999", "1e3", "1E+3", "5.0", "5.5", "-2e-1",
            "1e400", "99999999999999999999999",
        ]
        for text in cases {
            let document = try #require(Self.agree(Array(text.utf8), "\(text)"))
            #expect(document.root.int == JSONValue.number(text).int, "\(text)")
            guard let theirs = Self.oracle(Array(text.utf8)) else {
                // JSONSerialization refuses a number beyond Double's range; this parser keeps its text.
                #expect(text == "1e400" && document.root.int == nil, "\(text)")
                continue
            }
            #expect(Self.matches(document.root, theirs), "\(text)")
        }
    }

    @Test("refusals: the same error as JSONValue's, at the same byte, for broken answers")
    func refusals() throws {
        let broken = [
            #"{"id":1,"result":"ab"#, #"{"id":1,"id":2}"#, #"{"a":1,"\u0061":2}"#, #"[{"a":1},{"b":2,"b":3}]"#,
            #"{"id":1,"result":[1,2,]}"#, #"{"id":01}"#, #"{"id":1.}"#, #"{"id":1}x"#, #"{"s":"\uD800"}"#,
            #"{"s":"\q"}"#, "{\"s\":\"a\u{01}\"}", #"{"s":tru}"#, String(repeating: "[", count: 65),
            "{\"é\":1,\"e\u{301}\":2}", "", " ",
            #"{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k1":0}"#,
        ]
        for text in broken {
            let bytes = Array(text.utf8)
            #expect(throws: JSONError.self, "\(text)") { try JSONDocument(json: bytes) }
            _ = Self.agree(bytes, "\(text)")
        }
        // Invalid UTF-8 in a string, plain and after an escape.
        for bytes: [UInt8] in [[0x22, 0xC0, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22], [0x22, 0xE2, 0x82, 0x22]] {
            #expect(throws: JSONError.self) { try JSONDocument(json: bytes) }
            _ = Self.agree(bytes)
        }
        // Controls: the same answers, mended, parse.
        #expect(throws: Never.self) { try JSONDocument(json: Array(#"{"id":1,"result":"ab"}"#.utf8)) }
        #expect(throws: Never.self) { try JSONDocument(json: Array("{\"é\":1,\"e\":2}".utf8)) }
    }

    @Test("random texts, and the same texts broken at random: both parses agree, and JSONSerialization reads alike")
    func random() throws {
        var random = SplitMix64(seed: 33)
        var accepted = 0
        var refused = 0
        for round in 0..<1500 {
            let value = Self.randomValue(&random, depth: 0)
            var bytes = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
                .map { $0 }
            if round % 2 == 1 {
                // Broken: a byte changed, removed or inserted.
                let at = Int(random.next() % UInt64(bytes.count))
                let byte = Self.interesting[Int(random.next() % UInt64(Self.interesting.count))]
                switch random.next() % 3 {
                case 0: bytes[at] = byte
                case 1: bytes.remove(at: at)
                default: bytes.insert(byte, at: at)
                }
            }
            guard let document = Self.agree(bytes, "round \(round)") else {
                refused += 1
                continue
            }
            accepted += 1
            if let theirs = Self.oracle(bytes) {
                #expect(
                    Self.matches(document.root, theirs), "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        // Control: both kinds were seen in numbers.
        #expect(accepted > 800 && refused > 200)
    }

    static let interesting = Array(#"{}[],:"\u0-1.eE+ab9 "#.utf8) + [0x00, 0x0A, 0x7F, 0x80, 0xC3, 0xFF]

    /// A random value JSONSerialization can write: strings with quotes, backslashes, controls, non-ASCII and
    /// astral characters; integers, fractions and large numbers; nested arrays and objects.
    static func randomValue(_ random: inout SplitMix64, depth: Int) -> Any {
        let pick = random.next() % (depth > 4 ? 4 : 6)
        switch pick {
        case 0: return randomString(&random)
        case 1:
            switch random.next() % 4 {
            case 0: return Int(truncatingIfNeeded: random.next() >> UInt64(random.next() % 64))
            case 1: return -Int(random.next() % 100_000)
            case 2: return Double(Int64(random.next() % 2_000_000) - 1_000_000) / 64
            default: return Int(random.next() % 10)
            }
        case 2: return random.next() % 2 == 0
        case 3: return NSNull()
        case 4: return (0..<Int(random.next() % 5)).map { _ in randomValue(&random, depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 12) {
                object[randomString(&random)] = randomValue(&random, depth: depth + 1)
            }
            return object
        }
    }

    static func randomString(_ random: inout SplitMix64) -> String {
        let pieces = [
            "a", "tx_hash", "\"", "\\", "/", "\n", "\u{01}", "\u{1F}", "é", "€", "𝄞", "0123456789abcdef", " ",
        ]
        return (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }
}
