/// A JSON value, read and written by the one strict RFC 8259 parser and writer of Airlock: every JSON text the signer
/// reads from outside (EIP-712 typed data, keystores, Chance `multisig:` texts, its own vault file and audit journal)
/// and every answer the watcher reads from a server (Electrum, Esplora, Bitcoin Core and Ethereum JSON-RPC).
///
/// Numbers keep their literal text, so 256-bit integers and long fractions survive exactly; `double` converts one
/// only when asked. Objects keep their members in order. An object that names a member twice is refused, at any
/// depth: a reader that keeps the first and one that keeps the last would see different data (RFC 8259 section 4
/// leaves it open). Names that are the same text in another Unicode normalization (`é` as one or two characters)
/// count as the same name.
///
/// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8259
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (its text matches RFC 8259's grammar).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members in order (no name twice).
    case object([(String, JSONValue)])

    /// How deep arrays and objects may nest in a text the parser accepts.
    public static let maxDepth = 64

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    // MARK: Building values

    /// An integer as a number.
    public static func number(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    /// A `Double` as a number: an integral value below 10^15 in magnitude as an integer, another in Swift's shortest
    /// round-trip form; one that is not finite (JSON has no such number) as `null`.
    public static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value.rounded() == value, abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(value.description)
    }

    /// An object from a dictionary, its members in the order of their names (a dictionary has no order).
    public static func object(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    // MARK: Reading values

    /// The member `key` of an object, or nil (also when this is not an object).
    ///
    /// A linear scan: a member whose name has another length is passed over at the cost of one comparison, so
    /// even an object of a few dozen members is quicker to scan than to index (the servers' answers have 2 to 20).
    @inlinable
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        let length = key.utf8.count
        for member in members where member.0.utf8.count == length && Self.sameName(member.0, key) {
            return member.1
        }
        return nil
    }

    /// Whether two member names are the same bytes, as other JSON readers compare names (Swift's `==` would also
    /// equate canonically equivalent text: `é` as one or as two characters).
    @inlinable
    static func sameName(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] { return false }
                return true
            }
        }
    }

    /// The members of an object in order, or nil.
    @inlinable
    public var members: [(String, JSONValue)]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// The members of an object as a dictionary, or nil.
    public var object: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members, uniquingKeysWith: { first, _ in first })
    }

    /// The member names of an object in order (empty when this is not an object).
    public var keys: [String] { members?.map(\.0) ?? [] }

    /// The text of a string, or nil.
    @inlinable
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The text of a string, or nil (the same as `string`).
    @inlinable
    public var stringValue: String? { string }
    /// The items of an array, or nil.
    @inlinable
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The items of an array, or nil (the same as `array`).
    @inlinable
    public var arrayValue: [JSONValue]? { array }
    /// The value of `true` or `false`, or nil.
    @inlinable
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The value of `true` or `false`, or nil (the same as `bool`).
    @inlinable
    public var boolValue: Bool? { bool }
    /// Whether this is `null`.
    @inlinable
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The number's literal text, or nil.
    public var numberText: String? { if case .number(let n) = self { n } else { nil } }

    /// A number as the nearest finite `Double` (one that underflows becomes 0), or nil: not a number, or beyond the
    /// range of a `Double`.
    @inlinable
    public var double: Double? {
        guard case .number(let text) = self, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// A number literal that is a plain integer (no fraction, no exponent) fitting `Int`, or nil.
    @inlinable
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        return Self.shortInteger(text) ?? Int(text)
    }

    /// A number whose value is an integer within ±9·10^15 (`1e3` and `5.0` count), or nil.
    @inlinable
    public var int: Int? {
        guard case .number(let text) = self else { return nil }
        if let n = Self.shortInteger(text) ?? Int(text) { return abs(n) < 9_000_000_000_000_000 ? n : nil }
        guard let n = Double(text), n.rounded() == n, abs(n) < 9e15 else { return nil }
        return Int(n)
    }

    /// A number literal of at most 18 digits with no fraction or exponent (a height, a count, an id), read from its
    /// bytes without the generic integer parser; nil for anything else, which `Int(_:)` then reads or refuses.
    @inlinable
    static func shortInteger(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { bytes -> Int? in
            let negative = !bytes.isEmpty && bytes[0] == UInt8(ascii: "-")
            let start = negative ? 1 : 0
            guard bytes.count > start, bytes.count - start <= 18 else { return nil }
            var value = 0
            for i in start..<bytes.count {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int(digit)
            }
            return negative ? -value : value
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
