import Foundation

/// A JSON value as it came from a server: read with the typed accessors, which return nil on a type mismatch.
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// How deep arrays and objects may nest in a text `parse` accepts.
    public static let maxDepth = 64

    /// Parses UTF-8 JSON text, strictly (RFC 8259; `JSONParser` lists what is refused).
    ///
    /// - Throws: `ChainError.protocolViolation` when it is not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ChainError) -> JSONValue {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(JSONParser.Failure) in try JSONParser.parse(buffer) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                Result { () throws(JSONParser.Failure) in try JSONParser.parse(buffer) }
            }
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            let preview = String(decoding: bytes.prefix(120), as: UTF8.self)
            throw .protocolViolation("not JSON (\(failure.reason) at byte \(failure.offset)): \(preview)")
        }
    }

    /// The compact JSON text (`JSONWriter`: keys sorted, integral numbers below 10^15 as integers).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return out
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var double: Double? { if case .number(let n) = self { n } else { nil } }
    public var isNull: Bool { self == .null }

    /// An integer value (a JSON number with no fraction, within Int's range).
    public var int: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9e15 else { return nil }
        return Int(n)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
