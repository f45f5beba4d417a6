extension JSONValue {
    /// Parses UTF-8 JSON text, strictly (RFC 8259; `JSONParser` lists what is refused).
    ///
    /// - Throws: `JSONError.malformed` with the byte offset of the problem, `.duplicateMember` when an object names
    ///   a member twice.
    public init(json bytes: some Collection<UInt8>) throws(JSONError) {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(JSONError) in try JSONParser.parse(buffer) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                Result { () throws(JSONError) in try JSONParser.parse(buffer) }
            }
        self = try result.get()
    }

    /// Parses JSON text.
    ///
    /// - Throws: `JSONError`.
    public init(json text: String) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { buffer in Result { () throws(JSONError) in try JSONParser.parse(buffer) } }.get()
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
    /// Bytes of a string being unescaped (reused between strings).
    private var scratch: [UInt8] = []
    /// The members of the objects and the items of the arrays being read, innermost last (reused between values):
    /// a finished object or array is copied out once at its exact size rather than grown one append at a time.
    private var memberStack: [(String, JSONValue)] = []
    private var itemStack: [JSONValue] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses the whole of `bytes` as one JSON text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw parser.fail("text after the value") }
        return value
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

    private mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard offset < bytes.count else { throw fail("the text ends where a value should be") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("not the start of a value")
        }
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // {
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object([])
        }
        // This object's members are memberStack[base...] (a nested value's are gone again once it is read).
        let base = memberStack.count
        defer { memberStack.removeSubrange(base...) }
        // The names seen, once an object grows past a few members (a linear scan is quicker below that).
        var names: Set<String> = []
        while true {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyOffset = offset
            let key = try string()
            let count = memberStack.count - base
            if count < 8 {
                for i in base..<memberStack.count where memberStack[i].0 == key {
                    throw .duplicateMember(name: key, offset: keyOffset)
                }
            } else {
                if names.isEmpty { names = Set(memberStack[base...].map(\.0)) }
                guard names.insert(key).inserted else { throw .duplicateMember(name: key, offset: keyOffset) }
            }
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            skipSpace()
            let member = try value(depth: depth)
            memberStack.append((key, member))
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed object") }
            switch bytes[offset] {
            case UInt8(ascii: "}"):
                offset += 1
                return .object(Array(memberStack[base...]))
            case UInt8(ascii: ","):
                offset += 1
                skipSpace()
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // [
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array([])
        }
        // This array's items are itemStack[base...], as with an object's members.
        let base = itemStack.count
        defer { itemStack.removeSubrange(base...) }
        while true {
            let item = try value(depth: depth)
            itemStack.append(item)
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed array") }
            switch bytes[offset] {
            case UInt8(ascii: "]"):
                offset += 1
                return .array(Array(itemStack[base...]))
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
    private mutating func number() throws(JSONError) -> String {
        let start = offset
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
        // The grammar is checked, so the text is ASCII (up to 15 bytes it fits a small string, no allocation).
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// Whether any byte of `word` may be a quote, a backslash, below 0x20 or above 0x7F.
    ///
    /// Never false when one is (it may be true when none is; the byte loop after it decides). A zero byte of `x`
    /// shows as a high bit of `(x - 0x01…) & ~x & 0x80…`, a byte below 0x20 as one of `(x - 0x20…) & ~x & 0x80…`.
    @inline(__always) static func mayStopString(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let below20 = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | below20 | word) & high != 0
    }

    /// A string at `offset` (its opening quote), unescaped, checked as UTF-8.
    private mutating func string() throws(JSONError) -> String {
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
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            offset += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let b = bytes[offset]
            switch b {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw .malformed(offset: start, reason: "a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
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
