import Foundation

/// Machine output for `--json`: one JSON document on stdout with sorted keys, so scripts can rely on it.
public enum JSONOutput {
    /// Encodes `value` and prints it to stdout followed by a newline.
    public static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints an untyped JSON object (dictionaries, arrays, strings, numbers, booleans, NSNull) to stdout.
    public static func printObject(_ object: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
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
