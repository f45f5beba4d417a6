// FuzzJSON: bytes through ChainCore's strict JSON parser (`JSONValue.parse`, which reads every server answer). Any
// trap is a bug; an accepted text must hold finite numbers only and survive a serialize-and-parse round trip.
import ChainCore

extension FuzzTargets {
    /// One input of FuzzJSON.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONValue.parse(bytes) else { return }
        precondition(allFinite(value, depth: 0), "a number that is not finite was accepted")
        precondition((try? JSONValue.parse(value.serialized())) == value, "JSON round trip changed the value")
        // The same text handed over as a non-contiguous collection parses alike.
        precondition((try? JSONValue.parse(bytes.lazy.map { $0 })) == value, "a non-contiguous copy parsed otherwise")
    }

    private static func allFinite(_ value: JSONValue, depth: Int) -> Bool {
        precondition(depth <= JSONValue.maxDepth, "nesting beyond JSONValue.maxDepth was accepted")
        switch value {
        case .number(let n): return n.isFinite
        case .array(let items): return items.allSatisfy { allFinite($0, depth: depth + 1) }
        case .object(let members): return members.values.allSatisfy { allFinite($0, depth: depth + 1) }
        default: return true
        }
    }
}
