import Codecs

/// EIP-712 typed structured data, in the JSON form of `eth_signTypedData_v4`: `types`, `primaryType`, `domain`,
/// `message`.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-712
public struct TypedData: Sendable, Equatable {
    /// One field of a struct type.
    public struct Field: Sendable, Equatable {
        /// The field name.
        public let name: String
        /// Its type, as written (`uint256`, `Person`, `Person[]`, `bytes32[2][]`).
        public let type: String
    }

    /// The struct types by name.
    public let types: [String: [Field]]
    /// The type of `message`.
    public let primaryType: String
    /// The `EIP712Domain` value.
    public let domain: JSONValue
    /// The message value.
    public let message: JSONValue

    /// Nesting deeper than this is refused.
    static let maximumDepth = 32

    /// The members an `EIP712Domain` may declare (EIP-712; eth-account refuses any other).
    public static let domainFieldNames: Set<String> = ["name", "version", "chainId", "verifyingContract", "salt"]

    /// Parses the `eth_signTypedData_v4` JSON with the strict parser (a member named twice is refused).
    ///
    /// - Throws: `TypedDataError`.
    public init(json bytes: [UInt8]) throws(TypedDataError) {
        let root: JSONValue
        do { root = try JSONValue(json: bytes) } catch {
            switch error {
            case .malformed(let offset, _): throw .invalidJSON(offset: offset)
            case .duplicateMember(let name, _): throw .duplicateMember(name)
            }
        }
        try self.init(value: root)
    }

    /// Reads the `eth_signTypedData_v4` object.
    ///
    /// What is shown must be what is hashed, so beyond what `eth_signTypedData_v4` needs: the domain's members are
    /// exactly the ones `EIP712Domain` declares (one present but not declared would be shown and not signed; one
    /// declared but absent would be signed as zero and not shown), `primaryType` is the one type no other uses (as
    /// eth-account derives it), and `encodeData` refuses message members their type does not declare.
    ///
    /// - Throws: `TypedDataError`.
    public init(value root: JSONValue) throws(TypedDataError) {
        guard case .object(let typeMembers)? = root["types"] else { throw .missingMember("types") }
        guard case .object? = root["domain"], let domain = root["domain"] else { throw .missingMember("domain") }
        var types: [String: [Field]] = [:]
        for (name, declaration) in typeMembers {
            guard case .array(let entries) = declaration else {
                throw .invalidTypeDeclaration(name, "not an array of fields")
            }
            var fields: [Field] = []
            for entry in entries {
                guard case .string(let fieldName)? = entry["name"], case .string(let fieldType)? = entry["type"] else {
                    throw .invalidTypeDeclaration(name, "a field lacks a string name or type")
                }
                fields.append(Field(name: fieldName, type: fieldType))
            }
            types[name] = fields
        }
        self.types = types
        // Without `primaryType`, the one struct no other uses is the primary type (as eth-account derives it).
        let primary: String
        switch root["primaryType"] {
        case .string(let name)?: primary = name
        case nil:
            let roots = Self.roots(types)
            guard roots.count == 1 else { throw .missingMember("primaryType") }
            primary = roots[0]
        default: throw .missingMember("primaryType")
        }
        self.primaryType = primary
        self.domain = domain
        guard types["EIP712Domain"] != nil else { throw .unknownType("EIP712Domain") }
        guard primary == "EIP712Domain" || types[primary] != nil else { throw .unknownType(primary) }
        if primary != "EIP712Domain" {
            guard let message = root["message"], case .object = message else { throw .missingMember("message") }
            self.message = message
        } else {
            self.message = root["message"] ?? .null
        }
        for (name, fields) in types {
            for field in fields { try checkDeclared(field.type, in: name) }
        }
        let declared = types["EIP712Domain"] ?? []
        for field in declared where !Self.domainFieldNames.contains(field.name) {
            throw .nonStandardDomainField(field.name)
        }
        for name in domain.keys where !declared.contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
            throw .undeclaredMember(path: "domain", name: name)
        }
        for field in declared where domain[field.name] == nil {
            throw .missingDomainMember(field.name)
        }
        if primary != "EIP712Domain" {
            // The primary type is the one struct no other struct uses; a second such struct is data not signed.
            let roots = Self.roots(types)
            guard roots == [primary] else { throw .primaryTypeNotRoot(primaryType: primary, roots: roots) }
        }
    }

    /// The structs no other struct uses, `EIP712Domain` aside, sorted.
    static func roots(_ types: [String: [Field]]) -> [String] {
        var used: Set<String> = []
        for fields in types.values { for field in fields { used.insert(baseType(field.type)) } }
        return types.keys.filter { $0 != "EIP712Domain" && !used.contains($0) }.sorted()
    }

    /// The domain's `chainId` when the domain declares and holds one (the chain the signature is valid on), nil
    /// when it has none (valid on every chain).
    ///
    /// - Throws: `TypedDataError.invalidValue` when it is not an integer.
    public func domainChainID() throws(TypedDataError) -> UInt256? {
        guard let value = domain["chainId"], value != .null else { return nil }
        var text: String
        switch value {
        case .number(let literal): text = literal
        case .string(let string): text = string
        default: throw .invalidValue(path: "domain.chainId", type: "uint256", reason: "not an integer")
        }
        if text.hasPrefix("-") { text = "x" }
        do { return try UInt256(string: text) } catch {
            throw .invalidValue(path: "domain.chainId", type: "uint256", reason: "not an integer")
        }
    }

    private func checkDeclared(_ type: String, in owner: String) throws(TypedDataError) {
        let base = Self.baseType(type)
        if types[base] != nil { return }
        guard AtomicType(base) != nil else { throw .unknownType(base) }
        _ = try Self.arrayDimensions(type, owner: owner)
    }

    /// Whether the primary type is a token permit (EIP-2612 `Permit`, Permit2's `PermitSingle`, `PermitBatch`,
    /// `PermitTransferFrom`, `PermitBatchTransferFrom`, DAI's `Permit`), which lets the spender move tokens.
    public var isPermit: Bool { primaryType.hasPrefix("Permit") }

    /// The type name without any array suffixes.
    static func baseType(_ type: String) -> String {
        guard let bracket = type.firstIndex(of: "[") else { return type }
        return String(type[..<bracket])
    }

    /// Array dimensions from the outermost: nil for a dynamic dimension, the length for a fixed one.
    static func arrayDimensions(_ type: String, owner: String) throws(TypedDataError) -> [Int?] {
        guard let bracket = type.firstIndex(of: "[") else { return [] }
        var dims: [Int?] = []
        var rest = type[bracket...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
                throw .invalidTypeDeclaration(owner, "bad array suffix in \(type)")
            }
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            if inside.isEmpty {
                dims.append(nil)
            } else {
                guard let n = Int(inside), n > 0, inside.allSatisfy(\.isNumber) else {
                    throw .invalidTypeDeclaration(owner, "bad array length in \(type)")
                }
                dims.append(n)
            }
            rest = rest[rest.index(after: close)...]
        }
        // `T[2][]` is a dynamic array of T[2]: the last suffix is the outermost dimension.
        return dims.reversed()
    }
}

/// A Solidity type that is not a struct or array: how EIP-712 encodes one value of it.
enum AtomicType: Equatable {
    case address, bool, string, bytes
    case fixedBytes(Int)
    case unsigned(bits: Int)
    case signed(bits: Int)

    init?(_ name: String) {
        switch name {
        case "address": self = .address
        case "bool": self = .bool
        case "string": self = .string
        case "bytes": self = .bytes
        default:
            if name.hasPrefix("bytes"), let n = Int(name.dropFirst(5)), (1...32).contains(n), !name.hasPrefix("bytes0")
            {
                self = .fixedBytes(n)
            } else if name.hasPrefix("uint"), let bits = Self.bits(name.dropFirst(4)) {
                self = .unsigned(bits: bits)
            } else if name.hasPrefix("int"), let bits = Self.bits(name.dropFirst(3)) {
                self = .signed(bits: bits)
            } else {
                return nil
            }
        }
    }

    private static func bits(_ digits: Substring) -> Int? {
        guard let n = Int(digits), n % 8 == 0, (8...256).contains(n), !digits.hasPrefix("0") else { return nil }
        return n
    }
}
