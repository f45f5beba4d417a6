import Codecs
import Foundation

/// Machine output for `--json`: one JSON document on stdout with sorted keys, so scripts can rely on it.
///
/// Each command prints one `Encodable` output type (docs/architecture.md rule R9); property names become snake_case keys
/// (`masterFingerprint` → `master_fingerprint`), and golden files in Tests/Golden/json pin every command's shape. The
/// value is encoded by Codecs' `JSONValueEncoder` and written by its writer, laid out as Foundation's `JSONEncoder`
/// did (`sortedKeys`, `prettyPrinted`, `withoutEscapingSlashes`), so the goldens keep their bytes.
public enum JSONOutput {
    /// The JSON value of `value` as `print` writes it: snake_case names, members sorted.
    public static func value(_ value: some Encodable) throws -> JSONValue {
        try JSONValueEncoder(snakeCaseKeys: true).encode(value).sortingMembers()
    }

    /// The bytes `print` writes for `value` (without the newline).
    public static func encode(_ value: some Encodable) throws -> Data {
        Data(try Self.value(value).prettySerialized())
    }

    /// Encodes `value` and prints it to stdout followed by a newline.
    public static func print(_ value: some Encodable) throws {
        let data = try encode(value)
        StandardOutput.write(data + Data("\n".utf8))
    }

    /// Prints the JSON array of `elements` and a newline to stdout: the bytes `print(Array(elements))` writes, with one
    /// element's JSON value made at a time and the text written about 64 KB at a time.
    ///
    /// For the outputs that list a whole wallet: `utxos --json` of a 100,000-transaction wallet held the values of
    /// its 200,000 coins at once and peaked at 571 MB. Only for elements that cannot fail to encode (no floating-point
    /// number, which could be infinite): an element that failed after others would leave those written.
    public static func printEach<Elements: Sequence>(_ elements: Elements) throws
    where Elements.Element: Encodable {
        try encodeEach(elements) { StandardOutput.write(Data($0)) }
    }

    /// The bytes `printEach` writes, handed to `emit` in pieces of at least 64 KB (the last may be shorter).
    public static func encodeEach<Elements: Sequence>(_ elements: Elements, emit: ([UInt8]) -> Void) throws
    where Elements.Element: Encodable {
        var writer = JSONPrettyArrayWriter()
        try JSONValueEncoder(snakeCaseKeys: true).forEachEncoded(elements) { element in
            writer.append(element.sortingMembers())
            if writer.pending >= 1 << 16 { emit(writer.take()) }
        }
        writer.finish()
        emit(writer.take() + [0x0A])
    }

    /// Prints `value` with a `"files"` key added: every file the command wrote, in order (DESIGN section 11).
    ///
    /// `value` must encode as a JSON object.
    public static func print(_ value: some Encodable, files: [String]) throws {
        try print(WithFiles(value: value, files: files))
    }
}

/// An output object with the `files` the command wrote.
private struct WithFiles<Value: Encodable>: Encodable {
    let value: Value
    let files: [String]

    enum Key: String, CodingKey { case files }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(files, forKey: .files)
    }
}

/// Diagnostics on stderr; data goes to stdout (docs/architecture.md rule R9).
public enum Diagnostics {
    /// Writes `message` and a newline to stderr.
    public static func print(_ message: String) {
        StandardOutput.writeError(Data((message + "\n").utf8))
    }

    /// Whether stderr is a terminal (progress bars and colour only then).
    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
