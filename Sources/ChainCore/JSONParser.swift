/// A strict, direct parser of UTF-8 JSON text (RFC 8259) into `JSONValue`, for everything read from servers.
///
/// Refused: anything but one value surrounded by JSON whitespace (space, tab, LF, CR) — a byte order mark, trailing
/// garbage, a trailing comma, a leading zero, `1.`, `.5`, `+1`, an invalid escape, a lone or reversed UTF-16
/// surrogate, a control character (U+0000–U+001F) inside a string, invalid UTF-8 (overlong forms, encoded
/// surrogates, beyond U+10FFFF, truncated), a number whose value overflows `Double`, and arrays or objects nested
/// deeper than `JSONValue.maxDepth`. A number becomes the nearest `Double` (as Foundation's decoder gave);
/// one that underflows becomes 0. An object's repeated key keeps its first value (as Foundation's `JSONDecoder`
/// did). docs/benchmarks.md ("Sync pipelining, start-up and growth") says why this replaced Foundation.
struct JSONParser {
    /// Where and why the text was refused.
    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    /// Bytes of a string being unescaped (reused between strings).
    private var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses the whole of `bytes` as one JSON text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw parser.fail("text after the value") }
        return value
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: offset, reason: reason) }

    @inline(__always) private mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
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

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // {
        var members: [String: JSONValue] = [:]
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try string()
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            skipSpace()
            let member = try value(depth: depth)
            if members[key] == nil { members[key] = member }  // a repeated key keeps its first value
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed object") }
            switch bytes[offset] {
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            case UInt8(ascii: ","):
                offset += 1
                skipSpace()
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail("nested deeper than \(JSONValue.maxDepth)") }
        offset += 1  // [
        var items: [JSONValue] = []
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth))
            skipSpace()
            guard offset < bytes.count else { throw fail("unclosed array") }
            switch bytes[offset] {
            case UInt8(ascii: "]"):
                offset += 1
                return .array(items)
            case UInt8(ascii: ","):
                offset += 1
                skipSpace()
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw fail("unknown literal") }
        let start = word.utf8Start
        for i in 0..<count where bytes[offset + i] != start[i] { throw fail("unknown literal") }
        offset += count
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as the nearest finite `Double`.
    private mutating func number() throws(Failure) -> Double {
        let start = offset
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        let digitsStart = offset
        var integer: UInt64 = 0
        while offset < bytes.count, let digit = Self.digit(bytes[offset]) {
            if offset - digitsStart < 18 { integer = integer &* 10 &+ UInt64(digit) }
            offset += 1
        }
        let digitCount = offset - digitsStart
        guard digitCount > 0 else { throw fail("a number without digits") }
        guard bytes[digitsStart] != UInt8(ascii: "0") || digitCount == 1 else {
            throw Failure(offset: digitsStart, reason: "a number with a leading zero")
        }
        var simple = digitCount <= 15  // exact in a Double
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            simple = false
            offset += 1
            let fraction = offset
            while offset < bytes.count, Self.digit(bytes[offset]) != nil { offset += 1 }
            guard offset > fraction else { throw fail("a number with no digit after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            simple = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            let exponent = offset
            while offset < bytes.count, Self.digit(bytes[offset]) != nil { offset += 1 }
            guard offset > exponent else { throw fail("a number with no digit in its exponent") }
        }
        if simple {
            let value = Double(integer)
            return negative ? -value : value
        }
        // The grammar is checked, so the text is ASCII; Double(_:) rounds to nearest (strtod).
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw Failure(offset: start, reason: "a number beyond the range of a double")
        }
        return value
    }

    @inline(__always) private static func digit(_ byte: UInt8) -> UInt8? {
        let d = byte &- 0x30
        return d < 10 ? d : nil
    }

    /// A string at `offset` (its opening quote), unescaped, checked as UTF-8.
    private mutating func string() throws(Failure) -> String {
        offset += 1  // "
        let start = offset
        // Fast path: printable ASCII up to the closing quote, no escape.
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
                    throw Failure(offset: start, reason: "a string that is not UTF-8")
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
    private mutating func escape() throws(Failure) {
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
            throw Failure(offset: offset - 1, reason: "an invalid escape")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw fail("a \\u escape without four hex digits") }
        var value: UInt32 = 0
        for i in 0..<4 {
            let b = bytes[offset + i]
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x61...0x66: digit = b - 0x61 + 10
            case 0x41...0x46: digit = b - 0x41 + 10
            default: throw fail("a \\u escape without four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }
}
