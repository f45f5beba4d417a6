/// A JSON value that keeps numbers as their literal text, so 256-bit integers survive.
///
/// Foundation's parser turns them into doubles. Objects keep their keys in order.
///
/// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8259
public indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members in order.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member `key` of an object (the first, if repeated), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Parses UTF-8 JSON text (nesting up to 64 levels).
    ///
    /// - Throws: `TypedDataError.invalidJSON` with the byte offset of the problem.
    public init(json bytes: [UInt8]) throws(TypedDataError) {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        self = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw .invalidJSON(offset: parser.offset) }
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    func fail() -> TypedDataError { .invalidJSON(offset: offset) }

    mutating func value(depth: Int) throws(TypedDataError) -> JSONValue {
        guard depth < 64, offset < bytes.count else { throw fail() }
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            offset += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                if try endOrComma(UInt8(ascii: "}")) { return .object(members) }
            }
        case UInt8(ascii: "["):
            offset += 1
            var items: [JSONValue] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                if try endOrComma(UInt8(ascii: "]")) { return .array(items) }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try number())
        }
    }

    mutating func endOrComma(_ close: UInt8) throws(TypedDataError) -> Bool {
        guard offset < bytes.count else { throw fail() }
        if bytes[offset] == close {
            offset += 1
            return true
        }
        try expect(UInt8(ascii: ","))
        return false
    }

    mutating func expect(_ byte: UInt8) throws(TypedDataError) {
        guard offset < bytes.count, bytes[offset] == byte else { throw fail() }
        offset += 1
    }

    mutating func literal(_ word: String) throws(TypedDataError) {
        for b in word.utf8 { try expect(b) }
    }

    mutating func number() throws(TypedDataError) -> String {
        let start = offset
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let digitsStart = offset
        while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) { offset += 1 }
        guard offset > digitsStart else { throw fail() }
        if bytes[digitsStart] == 0x30, offset - digitsStart > 1 { throw .invalidJSON(offset: digitsStart) }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            let fraction = offset
            while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) { offset += 1 }
            guard offset > fraction else { throw fail() }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            let exponent = offset
            while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) { offset += 1 }
            guard offset > exponent else { throw fail() }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    mutating func string() throws(TypedDataError) -> String {
        try expect(UInt8(ascii: "\""))
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() -> Bool {
            guard !raw.isEmpty else { return true }
            guard let text = String(validating: raw, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            raw.removeAll()
            return true
        }
        while offset < bytes.count {
            let b = bytes[offset]
            offset += 1
            switch b {
            case UInt8(ascii: "\""):
                guard flush() else { throw fail() }
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard flush(), offset < bytes.count else { throw fail() }
                let e = bytes[offset]
                offset += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        try expect(UInt8(ascii: "\\"))
                        try expect(UInt8(ascii: "u"))
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail() }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw fail() }
                    scalars.append(scalar)
                default: throw fail()
                }
            case 0x00..<0x20:
                throw fail()
            default:
                raw.append(b)
            }
        }
        throw fail()
    }

    mutating func hex4() throws(TypedDataError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw fail() }
        var value: UInt32 = 0
        for b in bytes[offset..<(offset + 4)] {
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x61...0x66: digit = b - 0x61 + 10
            case 0x41...0x46: digit = b - 0x41 + 10
            default: throw fail()
            }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }
}
