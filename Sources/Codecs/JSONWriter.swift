extension JSONValue {
    /// The compact JSON text (`JSONWriter`): members in their order, numbers as written.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return out
    }

    /// Appends the compact JSON text (`serialized()`) to `out`.
    public func write(into out: inout [UInt8]) { JSONWriter.write(self, into: &out) }

    /// The JSON text laid out as Foundation's `prettyPrinted` option did.
    ///
    /// The vault file, the `--json` outputs and the exports have always used that layout, so files and goldens keep
    /// their bytes: two spaces a level, `"name" : value`,
    /// an empty array or object as its bracket, an empty line and the closing bracket; members in their order,
    /// strings escaped as `serialized()` does. No final newline.
    public func prettySerialized() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writePretty(self, indent: 0, into: &out)
        return out
    }

    /// This value with the members of every object (at any depth) in the order of their names' UTF-8 bytes: the
    /// order Foundation's `sortedKeys` gave the fixed ASCII names of Airlock's files and `--json` outputs.
    public func sortingMembers() -> JSONValue {
        switch self {
        case .array(let items): .array(items.map { $0.sortingMembers() })
        case .object(let members):
            .object(
                members.map { ($0.0, $0.1.sortingMembers()) }
                    .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
        default: self
        }
    }
}

/// The text `prettySerialized()` gives an array, written an element at a time: `append` each element's value, then
/// `finish`; `take` hands over what is written so far (a long list is written out in pieces).
public struct JSONPrettyArrayWriter {
    private var out: [UInt8] = [UInt8(ascii: "[")]
    private var count = 0

    public init() {}

    /// The bytes written since the last `take`.
    public var pending: Int { out.count }

    /// Writes the next element.
    public mutating func append(_ value: JSONValue) {
        JSONWriter.prettyArrayItem(count, indent: 0, into: &out)
        JSONWriter.writePretty(value, indent: 1, into: &out)
        count += 1
    }

    /// Closes the array.
    public mutating func finish() { JSONWriter.prettyArrayEnd(count: count, indent: 0, into: &out) }

    /// The bytes written since the last `take`, and none kept.
    public mutating func take() -> [UInt8] {
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }
}

/// Writes `JSONValue` as compact JSON text, directly (Foundation's `JSONEncoder` cost 9% of a sync's client CPU for
/// the requests alone): members in their order, numbers as their text, strings escaped as RFC 8259 requires (`"`,
/// `\` and U+0000–U+001F; `/` and non-ASCII as they are).
enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): string(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                string(member.0, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.1, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writePretty(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        func newline(_ level: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        switch value {
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                prettyArrayItem(i, indent: indent, into: &out)
                writePretty(item, indent: indent + 1, into: &out)
            }
            prettyArrayEnd(count: items.count, indent: indent, into: &out)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            if members.isEmpty { newline(0) }
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                string(member.0, into: &out)
                out.append(contentsOf: " : ".utf8)
                writePretty(member.1, indent: indent + 1, into: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default: write(value, into: &out)
        }
    }

    /// What comes before element `index` of a pretty array `indent` levels deep: a comma after the first, a line
    /// break and the element's indentation.
    static func prettyArrayItem(_ index: Int, indent: Int, into out: inout [UInt8]) {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * (indent + 1)))
    }

    /// The end of a pretty array of `count` elements `indent` levels deep: its closing bracket on a line of its own
    /// (an empty array's after an empty line).
    static func prettyArrayEnd(count: Int, indent: Int, into out: inout [UInt8]) {
        if count == 0 { out.append(0x0A) }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
        out.append(UInt8(ascii: "]"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string in quotes: the bytes that need no escape are copied a run at a time, straight from the string's
    /// UTF-8 storage.
    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Eight bytes at a time while none needs an escape (a request's txids and names): most strings are then
            // one copy.
            var clean = 0
            while bytes.count - clean >= 8 {
                let word = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + clean).loadUnaligned(as: UInt64.self)
                if mayNeedEscape(word) { break }
                clean += 8
            }
            while clean < bytes.count, bytes[clean] >= 0x20, bytes[clean] != UInt8(ascii: "\""),
                bytes[clean] != UInt8(ascii: "\\")
            {
                clean += 1
            }
            if clean == bytes.count {
                out.append(contentsOf: bytes)
                return
            }
            var run = 0  // the first byte not yet copied
            for i in clean..<bytes.count {
                let b = bytes[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                escape(b, into: &out)
                run = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any byte of `word` may be a quote, a backslash or below 0x20 (never false when one is; see
    /// `JSONParser.mayStopString`).
    @inline(__always) static func mayNeedEscape(_ word: UInt64) -> Bool {
        JSONParser.quoteBackslashOrControl(word) != 0
    }

    private static func escape(_ b: UInt8, into out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        default:
            out.append(contentsOf: "\\u00".utf8)
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0F)])
        }
    }
}
