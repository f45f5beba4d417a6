import Codecs
import Foundation
import Testing

@testable import CLISupport

/// The `--json` plumbing of the CLI contract (docs/architecture.md section 2): snake_case keys, `null` for absent values that
/// must stay in the document, the error object, and when `--json` counts as asked for.
@Suite("JSON output")
struct JSONOutputTests {
    struct Sample: Encodable {
        let masterFingerprint: String
        let feeRateSatPerKvb: Int
        @NullEncoded var height: Int?
        let note: String?
    }

    private func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONOutput.encode(value), as: UTF8.self)
    }

    @Test("keys are snake_case; @NullEncoded writes null; a plain optional is left out")
    func keysAndNulls() throws {
        let absent = try text(Sample(masterFingerprint: "d34db33f", feeRateSatPerKvb: 2000, height: nil, note: nil))
        #expect(
            absent == """
                {
                  "fee_rate_sat_per_kvb" : 2000,
                  "height" : null,
                  "master_fingerprint" : "d34db33f"
                }
                """)
        let present = try text(Sample(masterFingerprint: "00", feeRateSatPerKvb: 1, height: 7, note: "n"))
        #expect(present.contains("\"height\" : 7") && present.contains("\"note\" : \"n\""))
    }

    /// Every shape the outputs use: nested structs, arrays of structs, a `[String: …]` dictionary (its keys kept as
    /// they are), optionals left out and written, floating-point numbers, text with a slash and non-ASCII letters,
    /// and names with capitals runs (`psbtURL`, `someHTTPResponse`, `x2Value`).
    struct Shapes: Encodable {
        struct Inner: Encodable {
            let keyPath: String
            let amountSat: UInt64
        }
        let psbtURL: String
        let someHTTPResponse: Int
        let x2Value: Int8
        let feeRate: Double
        let small: Double
        let large: Double
        let ratio: Float
        let inner: Inner
        let items: [Inner]
        let settings: [String: String]
        let nested: [[Int]]
        let empty: [Inner]
        let absent: String?
        let present: Bool?
    }

    @Test("the Codecs encoder and writer give JSONEncoder's bytes (sorted, pretty, snake_case)")
    func sameAsJSONEncoder() throws {
        let value = Shapes(
            psbtURL: "a/b é ✓ \"q\"\n", someHTTPResponse: -3, x2Value: 7, feeRate: 2.5, small: 1e-7, large: 1e20,
            ratio: 0.1, inner: .init(keyPath: "m/84h", amountSat: 21_000_000 * 100_000_000),
            items: [.init(keyPath: "x", amountSat: 0), .init(keyPath: "y", amountSat: 1)],
            settings: ["electrumServer": "tcp://h:1", "B": "2", "a_b": "3"], nested: [[], [1, 2]], empty: [],
            absent: nil, present: false)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        #expect(try JSONOutput.encode(value) == encoder.encode(value))
        // Control: without the snake_case names the bytes differ.
        let plain = try JSONValueEncoder().encode(value).sortingMembers().prettySerialized()
        #expect(Data(plain) != (try encoder.encode(value)))
    }

    /// An object of many members written by hand, one of them twice (the second value must replace the first).
    struct ManyMembers: Encodable {
        let count: Int
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for i in 0..<count { try container.encode(i, forKey: Key(stringValue: "member\(i)")) }
            try container.encode("again", forKey: Key(stringValue: "member\(count - 1)"))
            try container.encode("first", forKey: Key(stringValue: "member0"))
        }
    }

    @Test("large arrays and objects encode as JSONEncoder encodes them, a member written twice keeping the last value")
    func largeContainers() throws {
        struct Coin: Encodable {
            let txid: String
            let vout: Int
            let valueSat: Int
        }
        struct Report: Encodable {
            let utxos: [Coin]
            let labels: [String: String]
            let wide: ManyMembers
            let narrow: ManyMembers
        }
        let value = Report(
            utxos: (0..<50_000).map { Coin(txid: String($0, radix: 16), vout: $0 % 3, valueSat: $0 * 7) },
            labels: Dictionary(uniqueKeysWithValues: (0..<3_000).map { ("addr\($0)", "label \($0)") }),
            wide: ManyMembers(count: 40), narrow: ManyMembers(count: 5))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let ours = try JSONOutput.encode(value)
        #expect(ours == (try encoder.encode(value)))
        let parsed = try JSONValue(json: ours)  // strict: a member named twice would be refused
        #expect(parsed["utxos"]?.array?.count == 50_000)
        #expect(parsed["utxos"]?.array?.last?["value_sat"]?.numberText == "349993")
        #expect(parsed["labels"]?.object?.count == 3_000)
        #expect(parsed["wide"]?["member39"]?.string == "again")
        #expect(parsed["wide"]?["member0"]?.string == "first")
        #expect(parsed["wide"]?.object?.count == 40)
        #expect(parsed["narrow"]?["member4"]?.string == "again")
        #expect(parsed["narrow"]?.object?.count == 5)
    }

    @Test("snake_case names as Foundation makes them")
    func snakeCase() {
        let cases = [
            ("masterFingerprint", "master_fingerprint"), ("psbtURL", "psbt_url"),
            ("someHTTPResponse", "some_http_response"),
            ("x2Value", "x2_value"), ("already_snake", "already_snake"), ("a", "a"), ("txid", "txid"),
        ]
        for (name, expected) in cases { #expect(JSONValueEncoder.snakeCase(name) == expected) }
    }

    @Test("the error object is {\"error\": {\"code\": N, \"message\": …}}")
    func errorObject() throws {
        let output = ErrorReporting.ErrorOutput(error: .init(code: ExitStatus.authentication.rawValue, message: "no"))
        let parsed = try JSONSerialization.jsonObject(with: JSONOutput.encode(output)) as? [String: [String: Any]]
        #expect(parsed?.keys.sorted() == ["error"])
        #expect(parsed?["error"]?["code"] as? Int == 3)
        #expect(parsed?["error"]?["message"] as? String == "no")
    }

    @Test(
        "--json counts before a -- terminator only",
        arguments: [
            (["airlock-watcher", "balance", "--json"], true),
            (["airlock-watcher", "--json", "balance"], true),
            (["airlock-watcher", "balance"], false),
            (["airlock-watcher", "import", "--", "--json"], false),
            (["airlock-watcher", "balance", "--jsonx"], false),
        ])
    func jsonMode(arguments: [String], expected: Bool) {
        #expect(JSONMode.isRequested(arguments) == expected)
    }

    @Test("report maps each error to its exit status")
    func reportStatus() {
        #expect(ErrorReporting.report(CLIError(.network, "down"), json: false) == .network)
        struct Other: Error {}
        #expect(ErrorReporting.report(Other(), json: false) == .invalidInput)
    }

    /// An element of a listed array: nested objects and arrays (empty ones too), text needing escapes, a snake_case
    /// name, an optional left out or written.
    struct Listed: Encodable {
        let coinIndex: Int
        let label: String
        let parts: [Shapes.Inner]
        let tags: [String]
        let note: String?
    }

    static func listed(_ count: Int) -> [Listed] {
        (0..<count).map { i in
            Listed(
                coinIndex: i, label: i % 3 == 0 ? "quote \" slash / tab \t line \n é \u{1}" : "coin \(i)",
                parts: (0..<(i % 4)).map { Shapes.Inner(keyPath: "m/84h/\($0)", amountSat: UInt64(i * 1_000 + $0)) },
                tags: i % 2 == 0 ? [] : ["a", "b"], note: i % 5 == 0 ? nil : "n\(i)")
        }
    }

    @Test(
        "an array written an element at a time is the bytes of the whole array printed at once",
        arguments: [0, 1, 2, 3_000])
    func printEachMatchesPrint(count: Int) throws {
        let elements = Self.listed(count)
        var pieces: [[UInt8]] = []
        try JSONOutput.encodeEach(elements) { pieces.append($0) }
        let whole = try JSONOutput.encode(elements) + Data("\n".utf8)
        #expect(Data(pieces.joined()) == whole)
        // Written in pieces of at least 64 KB (3,000 elements are some 600 KB), the last one shorter.
        #expect(pieces.dropLast().allSatisfy { $0.count >= 1 << 16 })
        if count == 3_000 { #expect(pieces.count > 1) }
    }
}
