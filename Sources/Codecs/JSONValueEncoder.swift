/// Encodes an `Encodable` value as a `JSONValue`, so `--json` outputs and backups are written by the one Codecs
/// writer instead of Foundation's `JSONEncoder`, with the same result for the types Airlock encodes: a property
/// left `nil` is left out (`encodeIfPresent`), `encodeNil` gives `null`, integers as their decimal text, a
/// floating-point number as its shortest round-trip text without a trailing `.0` (one that is not finite is refused),
/// and a `[String: Value]` dictionary as an object whose names are its keys, never converted.
public struct JSONValueEncoder: Sendable {
    /// Whether property names become snake_case as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` makes them
    /// (`masterFingerprint` → `master_fingerprint`, `psbtURL` → `psbt_url`).
    public var snakeCaseKeys: Bool

    public init(snakeCaseKeys: Bool = false) { self.snakeCaseKeys = snakeCaseKeys }

    /// The value as JSON, its object members in the order they were encoded.
    ///
    /// - Throws: `EncodingError.invalidValue` for a number that is not finite or a value that encodes nothing.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        try Self.encode(value, names: snakeCaseKeys ? SnakeCaseNames() : nil)
    }

    /// Hands `body` the JSON value of each element in turn (`encode` of each), the snake_case names converted once
    /// for all of them where `encode` converts them once a call: a list written an element at a time.
    ///
    /// - Throws: what `encode` throws, and what `body` throws.
    public func forEachEncoded<Elements: Sequence>(_ elements: Elements, _ body: (JSONValue) throws -> Void) throws
    where Elements.Element: Encodable {
        let names = snakeCaseKeys ? SnakeCaseNames() : nil
        for element in elements { try body(try Self.encode(element, names: names)) }
    }

    private static func encode(_ value: some Encodable, names: SnakeCaseNames?) throws -> JSONValue {
        let node = Node()
        try ValueEncoder(names: names, codingPath: [], node: node).store(value)
        guard let result = node.value else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "the value encoded nothing"))
        }
        return result
    }

    /// `name` in snake_case, as Foundation's `convertToSnakeCase` gives it: a word starts at each upper-case letter
    /// (a run of capitals is one word, its last letter starting the next when a lower-case letter follows), and the
    /// words are joined by `_` in lower case.
    public static func snakeCase(_ name: String) -> String {
        let chars = Array(name)
        guard chars.count > 1 else { return name }
        var words: [ArraySlice<Character>] = []
        var wordStart = 0
        var search = 1
        while let upper = chars[search...].firstIndex(where: \.isUppercase) {
            words.append(chars[wordStart..<upper])
            search = upper
            guard let lower = chars[search...].firstIndex(where: \.isLowercase) else {
                wordStart = search
                search = chars.count
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(chars[upper..<(lower - 1)])
                wordStart = lower - 1
            }
            search = lower + 1
            if search >= chars.count { break }
        }
        words.append(chars[wordStart..<chars.count])
        return words.map { String($0).lowercased() }.joined(separator: "_")
    }
}

/// A value being built: containers write through it, so an encoder asked for a keyed container twice (a wrapper
/// adding members to its value's object) adds to one object, and nested containers are nodes of their parent.
private final class Node {
    enum Content {
        case empty
        case leaf(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content = Content.empty

    var value: JSONValue? {
        switch content {
        case .empty: nil
        case .leaf(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.value ?? .object([])) })
        case .array(let items): .array(items.map { $0.value ?? .object([]) })
        }
    }

    /// Where each member's name sits in the object's list, kept once the object has 16 members or more, so a
    /// large object (a dictionary of many entries) is built in linear time.
    private var memberIndex: [String: Int] = [:]

    /// The node of member `name` (a new one replaces an earlier member of that name in place).
    func member(_ name: String) -> Node {
        let node = Node()
        var members: [(String, Node)] = []
        if case .object(let existing) = content { members = existing } else { memberIndex = [:] }
        content = .empty  // the list's one reference is `members` now: it grows in place, not copied each time
        if let at = position(of: name, in: members) {
            members[at].1 = node
        } else {
            if members.count >= Self.indexedFrom { memberIndex[name] = members.count }
            members.append((name, node))
        }
        content = .object(members)
        return node
    }

    private static let indexedFrom = 16

    private func position(of name: String, in members: [(String, Node)]) -> Int? {
        guard members.count >= Self.indexedFrom else { return members.firstIndex { $0.0 == name } }
        if memberIndex.count != members.count {
            memberIndex = Dictionary(members.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return memberIndex[name]
    }

    /// A new last item.
    func item() -> Node {
        let node = Node()
        var items: [Node] = []
        if case .array(let existing) = content { items = existing }
        content = .empty  // as in `member`: one reference, so appending is amortized constant time
        items.append(node)
        content = .array(items)
        return node
    }

    func makeObject() { if case .empty = content { content = .object([]) } }
    func makeArray() { if case .empty = content { content = .array([]) } }
    var count: Int { if case .array(let items) = content { items.count } else { 0 } }
}

/// A `[String: Value]` dictionary: its keys are names as they are (JSONEncoder converts no dictionary key).
private protocol StringKeyedDictionary {
    func encodeMembers(_ encoder: ValueEncoder) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func encodeMembers(_ encoder: ValueEncoder) throws {
        encoder.node.makeObject()
        for (key, value) in sorted(by: { $0.key < $1.key }) {
            try encoder.child(encoder.node.member(key), key: NameKey(key)).store(value)
        }
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "Index \(intValue ?? 0)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The snake_case form of each property name met in one `encode`, converted once: a list of 10,000 records
/// names the same few properties 10,000 times.
private final class SnakeCaseNames {
    private var converted: [String: String] = [:]

    func name(_ property: String) -> String {
        if let name = converted[property] { return name }
        let name = JSONValueEncoder.snakeCase(property)
        converted[property] = name
        return name
    }
}

private struct ValueEncoder: Encoder {
    /// Converts property names to snake_case; nil leaves them as they are.
    let names: SnakeCaseNames?
    let codingPath: [any CodingKey]
    let node: Node
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func name(_ key: some CodingKey) -> String { names?.name(key.stringValue) ?? key.stringValue }

    func child(_ node: Node, key: any CodingKey) -> ValueEncoder {
        ValueEncoder(names: names, codingPath: codingPath + [key], node: node)
    }

    /// Writes `value` into this encoder's node: a string, a Boolean or a number directly, a `[String: Value]`
    /// dictionary with its keys as they are, anything else through its `encode(to:)`.
    func store(_ value: some Encodable) throws {
        switch value {
        case let v as String: node.content = .leaf(.string(v))
        case let v as Bool: node.content = .leaf(.bool(v))
        case let v as Double: node.content = .leaf(try Self.number(v.isFinite, v.description, path: codingPath))
        case let v as Float: node.content = .leaf(try Self.number(v.isFinite, v.description, path: codingPath))
        case let v as any BinaryInteger: node.content = .leaf(.number("\(v)"))
        case let v as any StringKeyedDictionary: try v.encodeMembers(self)
        default: try value.encode(to: self)
        }
    }

    static func number(_ finite: Bool, _ text: String, path: [any CodingKey]) throws -> JSONValue {
        guard finite else {
            throw EncodingError.invalidValue(text, .init(codingPath: path, debugDescription: "not a finite number"))
        }
        return .number(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(Keyed<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return Unkeyed(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func member(_ key: Key) -> ValueEncoder {
            encoder.child(encoder.node.member(encoder.name(key)), key: key)
        }

        mutating func encodeNil(forKey key: Key) throws { member(key).node.content = .leaf(.null) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try member(key).store(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        { member(key).container(keyedBy: keyType) }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            member(key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            encoder.child(encoder.node.member("super"), key: NameKey("super"))
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder { member(key) }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.node.count }

        private mutating func next() -> ValueEncoder { encoder.child(encoder.node.item(), key: IndexKey(count)) }

        mutating func encodeNil() throws { next().node.content = .leaf(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws { try next().store(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        { next().container(keyedBy: keyType) }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

        mutating func superEncoder() -> any Encoder { next() }
    }

    private struct Single: SingleValueEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.node.content = .leaf(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws { try encoder.store(value) }
    }
}
