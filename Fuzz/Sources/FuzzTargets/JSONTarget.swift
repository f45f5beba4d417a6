// FuzzJSON: bytes through Codecs' one strict JSON parser (`JSONValue(json:)`; ChainCore's `JSONValue.parse`, which
// reads every server answer, wraps it). Any trap is a bug; an accepted text must hold numbers that are RFC 8259's
// grammar, nest within `JSONValue.maxDepth`, name no member twice, and survive a serialize-and-parse round trip.
import ChainCore
import Codecs

extension FuzzTargets {
    /// One input of FuzzJSON.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return }
        precondition(check(value, depth: 0), "a number outside the grammar or a repeated name was accepted")
        precondition((try? JSONValue.parse(value.serialized())) == value, "JSON round trip changed the value")
        // The same text handed over as a non-contiguous collection parses alike.
        precondition((try? JSONValue.parse(bytes.lazy.map { $0 })) == value, "a non-contiguous copy parsed otherwise")
    }

    private static func check(_ value: JSONValue, depth: Int) -> Bool {
        precondition(depth <= JSONValue.maxDepth, "nesting beyond JSONValue.maxDepth was accepted")
        switch value {
        case .number(let text):
            // A number alone is a JSON text; `double` is finite or nil, never an infinity.
            return (try? JSONValue(json: text)) == value && value.double?.isFinite != false
        case .array(let items): return items.allSatisfy { check($0, depth: depth + 1) }
        case .object(let members):
            return Set(members.map(\.0)).count == members.count
                && members.allSatisfy { check($0.1, depth: depth + 1) }
        default: return true
        }
    }
}
