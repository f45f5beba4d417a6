import Foundation

/// Machine output for `--json`: one JSON document on stdout with sorted keys, so scripts can rely on it.
///
/// Each command prints one `Encodable` output type (docs/architecture.md rule R9); property names become snake_case keys
/// (`masterFingerprint` → `master_fingerprint`), and golden files in Tests/Golden/json pin every command's shape.
public enum JSONOutput {
    /// The bytes `print` writes for `value` (without the newline).
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(value)
    }

    /// Encodes `value` and prints it to stdout followed by a newline.
    public static func print(_ value: some Encodable) throws {
        let data = try encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}

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

/// Diagnostics on stderr; data goes to stdout (docs/architecture.md rule R9).
public enum Diagnostics {
    /// Writes `message` and a newline to stderr.
    public static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Whether stderr is a terminal (progress bars and colour only then).
    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
