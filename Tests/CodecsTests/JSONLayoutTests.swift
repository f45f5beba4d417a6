import Codecs
import Foundation
import Testing

/// `prettySerialized()` and `sortingMembers()` write what Foundation's `JSONSerialization` wrote for the vault file,
/// the journal and the exports (`sortedKeys`, `prettyPrinted`, `withoutEscapingSlashes`), byte for byte.
@Suite("JSON layout")
struct JSONLayoutTests {
    /// Nested objects and arrays, empty ones, and strings with a slash, escapes, controls and non-ASCII text.
    static let value: JSONValue = .object([
        ("version", 2), ("b", .array([])), ("a", .object([("y", [1, 2]), ("x", .object([]))])),
        ("s", .string("a/b \"q\" \\ \n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é ✓ \u{2028}")), ("t", true), ("n", .null),
        ("list", .array([.object([("k", "v"), ("chain_id", 1)]), .array([])])), ("key_check", "00"),
    ])

    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let b): b
        case .number(let text): Int(text) ?? 0
        case .string(let s): s
        case .array(let items): items.map(foundation)
        case .object(let members): Dictionary(uniqueKeysWithValues: members.map { ($0.0, foundation($0.1)) })
        }
    }

    @Test("pretty, sorted: the bytes of JSONSerialization")
    func pretty() throws {
        let theirs = try JSONSerialization.data(
            withJSONObject: Self.foundation(Self.value),
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        #expect(Self.value.sortingMembers().prettySerialized() == Array(theirs))
        // Control: unsorted members are written in their order, which is not Foundation's here.
        #expect(Self.value.prettySerialized() != Array(theirs))
    }

    @Test("compact, sorted: the bytes of JSONSerialization")
    func compact() throws {
        let theirs = try JSONSerialization.data(
            withJSONObject: Self.foundation(Self.value), options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(Self.value.sortingMembers().serialized() == Array(theirs))
        #expect(Self.value.serialized() != Array(theirs))
    }
}
