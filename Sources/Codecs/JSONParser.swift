extension JSONValue {
    /// Parses UTF-8 JSON text, strictly (RFC 8259; `JSONParser` lists what is refused).
    ///
    /// - Throws: `JSONError.malformed` with the byte offset of the problem, `.duplicateMember` when an object names
    ///   a member twice.
    public init(json bytes: some Collection<UInt8>) throws(JSONError) {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(JSONError) in try JSONParser.parse(buffer).value(at: 0, in: buffer) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                Result { () throws(JSONError) in try JSONParser.parse(buffer).value(at: 0, in: buffer) }
            }
        self = try result.get()
    }

    /// Parses JSON text.
    ///
    /// - Throws: `JSONError`.
    public init(json text: String) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer).value(at: 0, in: buffer) }
        }.get()
    }
}

/// One value of a parsed text (`JSONTape`): its kind and where it is.
struct JSONNode: Sendable {
    enum Kind: UInt8, Sendable { case null, `false`, `true`, number, string, array, object }
    /// How a string's text is held.
    enum Text: UInt8, Sendable {
        /// Its bytes in the text are its UTF-8, all ASCII.
        case ascii
        /// Its bytes in the text are its UTF-8, some not ASCII (checked).
        case utf8
        /// It has escapes: its text is `JSONTape.strings[extra]`.
        case escaped
    }

    var kind: Kind
    var text: Text = .ascii
    /// A string's or number's bytes (a string's inside its quotes); an array's items or an object's members in
    /// `start`, as a count.
    var start: UInt32
    var end: UInt32 = 0
    /// The index of the node after this value and everything inside it.
    var next: UInt32 = 0
    /// An escaped string's index in `JSONTape.strings`.
    var extra: UInt32 = 0
}

/// A parsed JSON text as a list of its values in the order they are written (an object's members as name, value),
/// each naming its bytes in the text: what `JSONParser` makes, read in place (`JSONDocument`) or turned into a
/// `JSONValue`.
struct JSONTape: Sendable {
    var nodes: [JSONNode] = []
    /// The texts of the strings with escapes.
    var strings: [String] = []

    /// The bytes of node `index` (a string's inside its quotes, a number's text).
    @inline(__always) static func slice(_ node: JSONNode, _ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<
        UInt8
    > {
        UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
    }

    /// The text of string node `index`.
    func string(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let node = nodes[index]
        if node.text == .escaped { return strings[Int(node.extra)] }
        return String(decoding: Self.slice(node, bytes), as: UTF8.self)
    }

    /// Node `index` and everything inside it as a `JSONValue`.
    func value(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> JSONValue {
        let node = nodes[index]
        switch node.kind {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(String(decoding: Self.slice(node, bytes), as: UTF8.self))
        case .string: return .string(string(at: index, in: bytes))
        case .array:
            var items: [JSONValue] = []
            items.reserveCapacity(Int(node.start))
            var item = index + 1
            for _ in 0..<Int(node.start) {
                items.append(value(at: item, in: bytes))
                item = Int(nodes[item].next)
            }
            return .array(items)
        case .object:
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(Int(node.start))
            var name = index + 1
            for _ in 0..<Int(node.start) {
                members.append((string(at: name, in: bytes), value(at: name + 1, in: bytes)))
                name = Int(nodes[name + 1].next)
            }
            return .object(members)
        }
    }
}

/// The strict, direct parser of UTF-8 JSON text (RFC 8259) into `JSONValue`, written for the watcher's sync, which
/// reads every server answer through it (docs/benchmarks.md, "Sync pipelining, start-up and growth").
///
/// Refused: anything but one value surrounded by JSON whitespace (space, tab, LF, CR) — a byte order mark, trailing
/// garbage, a trailing comma, a leading zero, `1.`, `.5`, `+1`, an invalid escape, a lone or reversed UTF-16
/// surrogate, a control character (U+0000–U+001F) inside a string, invalid UTF-8 (overlong forms, encoded
/// surrogates, beyond U+10FFFF, truncated), an object naming a member twice, and arrays or objects nested deeper than
/// `JSONValue.maxDepth`. A number is kept as its text, whatever its size.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    /// What is read so far.
    private var tape = JSONTape()
    /// Bytes of a string being unescaped (reused between strings).
    private var scratch: [UInt8] = []
    /// The name nodes of the objects being read, innermost last (reused between objects), for the check that no
    /// object names a member twice.
    private var nameStack: [Int] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses the whole of `bytes` as one JSON text; its value is the tape's first node.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONTape {
        // The tape names offsets in 32 bits: a text of 4 GiB is refused, not trapped on (nothing Airlock reads comes
        // near: a server's line is cut at 8 MB).
        guard bytes.count < Int(UInt32.max) else { throw .malformed(offset: 0, reason: "a text of 4 GiB or more") }
        var parser = JSONParser(bytes: bytes)
        // About one value per 16 bytes in a server's answers (objects of short names and numbers), so the tape is
        // rarely grown and copied; capped for one long string.
        parser.tape.nodes.reserveCapacity(min(bytes.count / 16 + 4, 1 << 16))
        parser.skipSpace()
        try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw parser.fail("text after the value") }
        return parser.tape
    }

    private func fail(_ reason: String) -> JSONError { .malformed(offset: offset, reason: reason) }

    @inline(__always) private mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// Appends a node that holds nothing inside it.
    @inline(__always) private mutating func leaf(_ node: JSONNode) {
        var node = node
        node.next = UInt32(tape.nodes.count + 1)
        tape.nodes.append(node)
    }

    private mutating func value(depth: Int) throws(JSONError) {
        guard offset < bytes.count else { throw fail("the text ends where a value should be") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"):
            try literal("true")
            leaf(JSONNode(kind: .true, start: 0))
        case UInt8(ascii: "f"):
            try literal("false")
            leaf(JSONNode(kind: .false, start: 0))
        case UInt8(ascii: "n"):
            try literal("null")
            leaf(JSONNode(kind: .null, start: 0))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = offset
            try number()
            leaf(JSONNode(kind: .number, start: UInt32(start), end: UInt32(offset)))
        default: throw fail("not the start of a value")
        }
    }

    /// Whether the names at nodes `a` and `b` are the same name: the same bytes when both are ASCII as written,
    /// else the same text as Swift compares it (canonically equivalent), as the members were always compared.
    private func sameName(_ a: Int, _ b: Int) -> Bool {
        let x = tape.nodes[a]
        let y = tape.nodes[b]
        if x.text == .ascii && y.text == .ascii {
            guard x.end - x.start == y.end - y.start else { return false }
            return memcmpEqual(Int(x.start), Int(y.start), Int(x.end - x.start))
        }
        return tape.string(at: a, in: bytes) == tape.string(at: b, in: bytes)
    }

    private func memcmpEqual(_ a: Int, _ b: Int, _ count: Int) -> Bool {
        for i in 0..<count where bytes[a + i] != bytes[b + i] { return false }
        return true
    }

    private mutating func object(depth: Int) throws(JSONError) {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // {
        skipSpace()
        let index = tape.nodes.count
        tape.nodes.append(JSONNode(kind: .object, start: 0))
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            tape.nodes[index].next = UInt32(tape.nodes.count)
            return
        }
        // This object's names are nameStack[base...] (a nested object's are gone again once it is read).
        let base = nameStack.count
        defer { nameStack.removeSubrange(base...) }
        // The names seen, once an object grows past a few members (a linear scan is quicker below that).
        var names: Set<String> = []
        while true {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyOffset = offset
            let key = tape.nodes.count
            try string()
            let count = nameStack.count - base
            if count < 8 {
                for i in base..<nameStack.count where sameName(nameStack[i], key) {
                    throw .duplicateMember(name: tape.string(at: key, in: bytes), offset: keyOffset)
                }
            } else {
                if names.isEmpty { names = Set(nameStack[base...].map { tape.string(at: $0, in: bytes) }) }
                let name = tape.string(at: key, in: bytes)
                guard names.insert(name).inserted else { throw .duplicateMember(name: name, offset: keyOffset) }
            }
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            skipSpace()
            try value(depth: depth)
            nameStack.append(key)
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed object") }
            switch bytes[offset] {
            case UInt8(ascii: "}"):
                offset += 1
                tape.nodes[index].start = UInt32(nameStack.count - base)
                tape.nodes[index].next = UInt32(tape.nodes.count)
                return
            case UInt8(ascii: ","):
                offset += 1
                skipSpace()
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONError) {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // [
        skipSpace()
        let index = tape.nodes.count
        tape.nodes.append(JSONNode(kind: .array, start: 0))
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            tape.nodes[index].next = UInt32(tape.nodes.count)
            return
        }
        var count: UInt32 = 0
        while true {
            try value(depth: depth)
            count += 1
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed array") }
            switch bytes[offset] {
            case UInt8(ascii: "]"):
                offset += 1
                tape.nodes[index].start = count
                tape.nodes[index].next = UInt32(tape.nodes.count)
                return
            case UInt8(ascii: ","):
                offset += 1
                skipSpace()
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        let start = word.utf8Start
        // The offset named is the first byte that differs (or the end of the text).
        for i in 0..<count where offset + i >= bytes.count || bytes[offset + i] != start[i] {
            throw .malformed(offset: offset + i, reason: "unknown literal")
        }
        offset += count
    }

    /// A number, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as its text.
    private mutating func number() throws(JSONError) {
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let digitsStart = offset
        while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
        let digitCount = offset - digitsStart
        guard digitCount > 0 else { throw fail("a number without digits") }
        guard bytes[digitsStart] != UInt8(ascii: "0") || digitCount == 1 else {
            throw .malformed(offset: digitsStart, reason: "a number with a leading zero")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            let fraction = offset
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
            guard offset > fraction else { throw fail("a number with no digit after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            let exponent = offset
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
            guard offset > exponent else { throw fail("a number with no digit in its exponent") }
        }
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// Whether any byte of `word` may be a quote, a backslash, below 0x20 or above 0x7F.
    ///
    /// Never false when one is (it may be true when none is; the byte loop after it decides). A zero byte of `x`
    /// shows as a high bit of `(x - 0x01…) & ~x & 0x80…`, a byte below 0x20 as one of `(x - 0x20…) & ~x & 0x80…`.
    @inline(__always) static func mayStopString(_ word: UInt64) -> Bool {
        (quoteBackslashOrControl(word) | word) & 0x8080_8080_8080_8080 != 0
    }

    /// The high bit of each byte of `word` that may be a quote, a backslash or below 0x20 (never clear when one is):
    /// what both the parser's string scan and the writer's escape scan (`JSONWriter.mayNeedEscape`) look for.
    @inline(__always) static func quoteBackslashOrControl(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let below20 = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | below20) & 0x8080_8080_8080_8080
    }

    /// A string at `offset` (its opening quote), checked as UTF-8, as a node: its bytes in place, or its text
    /// unescaped when it has escapes.
    private mutating func string() throws(JSONError) {
        offset += 1  // "
        let start = offset
        // Fast path: printable ASCII up to the closing quote, no escape; eight bytes at a time while no byte of the
        // word can be one of those (a transaction's hex is most of what a sync reads), then byte by byte.
        while bytes.count - offset >= 8 {
            let word = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: UInt64.self)
            if Self.mayStopString(word) { break }
            offset += 8
        }
        while offset < bytes.count {
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") {
                leaf(JSONNode(kind: .string, text: .ascii, start: UInt32(start), end: UInt32(offset)))
                offset += 1
                return
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            offset += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        var escaped = false
        while offset < bytes.count {
            let b = bytes[offset]
            switch b {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw .malformed(offset: start, reason: "a string that is not UTF-8")
                }
                var node = JSONNode(kind: .string, text: .utf8, start: UInt32(start), end: UInt32(offset))
                if escaped {
                    node.text = .escaped
                    node.extra = UInt32(tape.strings.count)
                    tape.strings.append(text)
                }
                leaf(node)
                offset += 1
                return
            case UInt8(ascii: "\\"):
                offset += 1
                escaped = true
                try escape()
            case 0x00..<0x20:
                throw fail("a control character in a string")
            default:
                scratch.append(b)
                offset += 1
            }
        }
        throw fail("unclosed string")
    }

    /// The escape after a backslash, appended to `scratch` as UTF-8.
    private mutating func escape() throws(JSONError) {
        guard offset < bytes.count else { throw fail("unclosed string") }
        let e = bytes[offset]
        offset += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var unit = try hex4()
            if (0xDC00...0xDFFF).contains(unit) { throw fail("a lone low surrogate") }
            if (0xD800...0xDBFF).contains(unit) {
                guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else { throw fail("a lone high surrogate") }
                offset += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate without its low half") }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(unit) else { throw fail("not a Unicode scalar") }
            UTF8.encode(scalar) { scratch.append($0) }
        default:
            throw .malformed(offset: offset - 1, reason: "an invalid escape")
        }
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw fail("a \\u escape without four hex digits") }
        var value: UInt32 = 0
        for i in 0..<4 {
            guard let digit = Hex.nibble(bytes[offset + i]) else { throw fail("a \\u escape without four hex digits") }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }
}
