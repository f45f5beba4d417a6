/// An optional value that `--json` spells `null` when absent (a plain optional property leaves its key out).
@propertyWrapper
public struct NullEncoded<Value: Encodable & Sendable>: Encodable, Sendable {
    /// The value, or nil for `null`.
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
