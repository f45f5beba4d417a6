/// A JSON value read by the one strict RFC 8259 parser of the signer (docs/threat-model.md, "Strict inputs"): every
/// JSON it reads from outside (EIP-712 typed data, keystores, Chance `multisig:` texts, its own vault file and audit
/// journal) is parsed here.
///
/// Numbers keep their literal text, so 256-bit integers survive (Foundation's parser turns them into doubles), and
/// objects keep their members in order. An object that names a member twice is refused, at any depth: a reader that
/// keeps the first and one that keeps the last would see different data (RFC 8259 section 4 leaves it open). Names
/// that are the same text in another Unicode normalization (`é` as one or two characters) count as the same name.
///
/// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8259
public indirect enum StrictJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([StrictJSON])
    /// An object: its members in order (no name twice).
    case object([(String, StrictJSON)])

    /// Nesting deeper than this is refused.
    public static let maximumDepth = 64

    public static func == (lhs: StrictJSON, rhs: StrictJSON) -> Bool {
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

    /// The member `key` of an object, or nil (also when this is not an object).
    public subscript(key: String) -> StrictJSON? {
        guard case .object(let members) = self else { return nil }
        // Byte for byte, as other JSON readers compare names (Swift's `==` equates canonically equivalent text).
        return members.first { $0.0.utf8.elementsEqual(key.utf8) }?.1
    }

    /// The members of an object, or nil.
    public var members: [(String, StrictJSON)]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// The member names of an object (empty when this is not an object).
    public var keys: [String] { members?.map(\.0) ?? [] }

    /// The text of a string, or nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The value of `true` or `false`, or nil.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The items of an array, or nil.
    public var arrayValue: [StrictJSON]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// A number literal that is a plain integer (no fraction, no exponent) fitting `Int`, or nil.
    public var intValue: Int? {
        guard case .number(let literal) = self else { return nil }
        return Int(literal)
    }

    /// Parses UTF-8 JSON text (nesting up to `maximumDepth` levels).
    ///
    /// - Throws: `StrictJSONError.malformed` with the byte offset of the problem, `.duplicateMember` when an object
    ///   names a member twice.
    public init(json bytes: [UInt8]) throws(StrictJSONError) {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        self = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw .malformed(offset: parser.offset) }
    }

    /// Parses JSON text.
    ///
    /// - Throws: `StrictJSONError`.
    public init(json text: String) throws(StrictJSONError) { try self.init(json: Array(text.utf8)) }
}

/// Why JSON text was refused.
public enum StrictJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON (byte offset of the problem).
    case malformed(offset: Int)
    /// An object names the member twice (the name, the byte offset of the second one).
    case duplicateMember(name: String, offset: Int)

    public var description: String {
        switch self {
        case .malformed(let offset): "not valid JSON (at byte \(offset))"
        case .duplicateMember(let name, let offset):
            "the JSON names the member \"\(Self.quoted(name))\" twice in one object (at byte \(offset)): "
                + "readers disagree on which one counts, so it is refused"
        }
    }

    /// `name` with anything outside printable ASCII escaped, at most 40 characters: the name came from outside.
    static func quoted(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars.prefix(40) {
            if (0x20..<0x7F).contains(scalar.value), scalar != "\"", scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16)
                let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                out += scalar.value > 0xFFFF ? "\\u{\(hex)}" : "\\u" + padded
            }
        }
        return name.unicodeScalars.count > 40 ? out + "..." : out
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    func fail() -> StrictJSONError { .malformed(offset: offset) }

    mutating func value(depth: Int) throws(StrictJSONError) -> StrictJSON {
        guard depth < StrictJSON.maximumDepth, offset < bytes.count else { throw fail() }
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            offset += 1
            var members: [(String, StrictJSON)] = []
            var names: Set<String> = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipSpace()
                let keyOffset = offset
                let key = try string()
                guard names.insert(key).inserted else { throw .duplicateMember(name: key, offset: keyOffset) }
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                if try endOrComma(UInt8(ascii: "}")) { return .object(members) }
            }
        case UInt8(ascii: "["):
            offset += 1
            var items: [StrictJSON] = []
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

    mutating func endOrComma(_ close: UInt8) throws(StrictJSONError) -> Bool {
        guard offset < bytes.count else { throw fail() }
        if bytes[offset] == close {
            offset += 1
            return true
        }
        try expect(UInt8(ascii: ","))
        return false
    }

    mutating func expect(_ byte: UInt8) throws(StrictJSONError) {
        guard offset < bytes.count, bytes[offset] == byte else { throw fail() }
        offset += 1
    }

    mutating func literal(_ word: String) throws(StrictJSONError) {
        for b in word.utf8 { try expect(b) }
    }

    mutating func number() throws(StrictJSONError) -> String {
        let start = offset
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let digitsStart = offset
        while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) { offset += 1 }
        guard offset > digitsStart else { throw fail() }
        if bytes[digitsStart] == 0x30, offset - digitsStart > 1 { throw .malformed(offset: digitsStart) }
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

    mutating func string() throws(StrictJSONError) -> String {
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

    mutating func hex4() throws(StrictJSONError) -> UInt32 {
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
