public import Ethereum

/// A Solidity ABI type as an ERC-7730 descriptor writes it in a function signature.
public indirect enum ABIType: Sendable, Equatable {
    case uint(bits: Int)
    case int(bits: Int)
    case address
    case bool
    case fixedBytes(Int)
    case bytes
    case string
    case array(ABIType, count: Int?)
    case tuple([ABIParameter])

    /// The canonical type text used in the selector (names dropped, tuples expanded).
    public var canonical: String {
        switch self {
        case .uint(let bits): "uint\(bits)"
        case .int(let bits): "int\(bits)"
        case .address: "address"
        case .bool: "bool"
        case .fixedBytes(let n): "bytes\(n)"
        case .bytes: "bytes"
        case .string: "string"
        case .array(let element, let count): element.canonical + "[" + (count.map(String.init) ?? "") + "]"
        case .tuple(let members): "(" + members.map(\.type.canonical).joined(separator: ",") + ")"
        }
    }

    /// Whether the type is encoded out of line (a head offset pointing into the tail).
    var isDynamic: Bool {
        switch self {
        case .bytes, .string: true
        case .array(let element, let count): count == nil || element.isDynamic
        case .tuple(let members): members.contains { $0.type.isDynamic }
        default: false
        }
    }

    /// The number of 32-byte head words of a static type.
    var headWords: Int {
        switch self {
        case .array(let element, let count?) where !isDynamic: count * element.headWords
        case .tuple(let members) where !isDynamic: members.reduce(0) { $0 + $1.type.headWords }
        default: 1
        }
    }
}

/// One named parameter of a function signature or tuple.
public struct ABIParameter: Sendable, Equatable {
    public let name: String
    public let type: ABIType
}

/// A function signature as written in a descriptor's `display.formats` key (`transfer(address to, uint256 amount)`).
public struct ABIFunction: Sendable, Equatable {
    public let name: String
    public let parameters: [ABIParameter]

    /// The canonical signature, `transfer(address,uint256)`.
    public var canonical: String { name + "(" + parameters.map(\.type.canonical).joined(separator: ",") + ")" }

    /// The 4-byte selector: the first bytes of Keccak-256 of the canonical signature.
    public var selector: [UInt8] { Array(Keccak256.hash(Array(canonical.utf8)).prefix(4)) }

    /// Parses `name(type name, ...)`; `canonicalTypesOnly` refuses the aliases `uint` and `int` (a descriptor's
    /// format keys must use canonical type names).
    public init(signature: String, canonicalTypesOnly: Bool = false) throws(ClearSigningError) {
        var parser = SignatureParser(text: Array(signature.utf8), canonicalTypesOnly: canonicalTypesOnly)
        parser.skipSpaces()
        let name = parser.identifier()
        guard !name.isEmpty, parser.peek == UInt8(ascii: "(") else {
            throw .invalidDescriptor(
                "the function signature \"\(signature.prefix(80))\" is not of the form name(type name, ...)")
        }
        guard let parameters = parser.parameterList() else {
            if canonicalTypesOnly, (try? ABIFunction(signature: signature)) != nil {
                throw .invalidDescriptor(
                    "the format key \"\(signature.prefix(80))\" uses the type alias uint or int; ERC-7730 keys use "
                        + "canonical type names such as uint256")
            }
            throw .invalidDescriptor(
                "the function signature \"\(signature.prefix(80))\" has a type that cannot be read")
        }
        parser.skipSpaces()
        guard parser.atEnd else {
            throw .invalidDescriptor("the function signature \"\(signature.prefix(80))\" has text after its parameters")
        }
        self.name = name
        self.parameters = parameters
    }
}

private struct SignatureParser {
    let text: [UInt8]
    let canonicalTypesOnly: Bool
    var index = 0

    var atEnd: Bool { index >= text.count }
    var peek: UInt8? { index < text.count ? text[index] : nil }

    mutating func skipSpaces() { while let c = peek, c == 0x20 || c == 0x0A || c == 0x09 { index += 1 } }

    mutating func identifier() -> String {
        let start = index
        while let c = peek, c == 0x5F || c == 0x24 || (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A)
        {
            index += 1
        }
        return String(decoding: text[start..<index], as: UTF8.self)
    }

    /// `(param, param, ...)`; the opening parenthesis is at `index`.
    mutating func parameterList() -> [ABIParameter]? {
        guard peek == UInt8(ascii: "(") else { return nil }
        index += 1
        skipSpaces()
        var result: [ABIParameter] = []
        if peek == UInt8(ascii: ")") {
            index += 1
            return result
        }
        while true {
            skipSpaces()
            guard let type = type() else { return nil }
            skipSpaces()
            var name = identifier()
            if name == "memory" || name == "calldata" || name == "indexed" {
                skipSpaces()
                name = identifier()
            }
            result.append(ABIParameter(name: name, type: type))
            skipSpaces()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard peek == UInt8(ascii: ")") else { return nil }
            index += 1
            return result
        }
    }

    mutating func type() -> ABIType? {
        var base: ABIType
        if peek == UInt8(ascii: "(") {
            guard let members = parameterList() else { return nil }
            base = .tuple(members)
        } else {
            var word = identifier()
            if word == "tuple", peek == UInt8(ascii: "(") {
                guard let members = parameterList() else { return nil }
                base = .tuple(members)
                word = ""
            } else {
                guard let elementary = Self.elementary(word), !canonicalTypesOnly || (word != "uint" && word != "int")
                else { return nil }
                base = elementary
            }
        }
        while peek == UInt8(ascii: "[") {
            index += 1
            let start = index
            while let c = peek, c >= 0x30, c <= 0x39 { index += 1 }
            let digits = String(decoding: text[start..<index], as: UTF8.self)
            guard peek == UInt8(ascii: "]") else { return nil }
            index += 1
            if digits.isEmpty {
                base = .array(base, count: nil)
            } else {
                guard let n = Int(digits), n > 0, n <= 1024 else { return nil }
                base = .array(base, count: n)
            }
        }
        return base
    }

    static func elementary(_ word: String) -> ABIType? {
        switch word {
        case "address": return .address
        case "bool": return .bool
        case "string": return .string
        case "bytes": return .bytes
        case "uint": return .uint(bits: 256)
        case "int": return .int(bits: 256)
        default: break
        }
        if word.hasPrefix("uint"), let bits = Int(word.dropFirst(4)), bits > 0, bits <= 256, bits % 8 == 0 {
            return .uint(bits: bits)
        }
        if word.hasPrefix("int"), let bits = Int(word.dropFirst(3)), bits > 0, bits <= 256, bits % 8 == 0 {
            return .int(bits: bits)
        }
        if word.hasPrefix("bytes"), let n = Int(word.dropFirst(5)), n > 0, n <= 32 { return .fixedBytes(n) }
        return nil
    }
}
