import Codecs

extension TypedData {
    /// The struct's `encodeType`: `Name(type field,…)` followed by the types it references, sorted by name.
    ///
    /// - Throws: `TypedDataError.unknownType`.
    public func encodeType(_ name: String) throws(TypedDataError) -> String {
        guard types[name] != nil else { throw .unknownType(name) }
        var found: [String] = []
        collectDependencies(name, into: &found)
        let dependencies = found.filter { $0 != name }.sorted()
        return ([name] + dependencies).map { type in
            let fields = types[type] ?? []
            return type + "(" + fields.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
        }.joined()
    }

    private func collectDependencies(_ name: String, into found: inout [String]) {
        guard !found.contains(name), let fields = types[name] else { return }
        found.append(name)
        for field in fields { collectDependencies(Self.baseType(field.type), into: &found) }
    }

    /// Keccak-256 of `encodeType(name)`.
    public func typeHash(_ name: String) throws(TypedDataError) -> [UInt8] {
        Keccak256.hash(Array(try encodeType(name).utf8))
    }

    /// `encodeData`: the type hash followed by one 32-byte word per field.
    ///
    /// As `eth_signTypedData_v4` (MetaMask, eth-account) does, a null or missing struct, `string` or `bytes` field
    /// is the zero word; a null or missing field of another type is refused. A number given for a `string` is
    /// refused (wallets disagree on its encoding).
    ///
    /// - Throws: `TypedDataError` for a missing field or a value that does not fit its type.
    public func encodeData(_ name: String, value: JSONValue) throws(TypedDataError) -> [UInt8] {
        try encodeData(name, value: value, path: name, depth: 0)
    }

    /// `hashStruct`: Keccak-256 of `encodeData`.
    public func hashStruct(_ name: String, value: JSONValue) throws(TypedDataError) -> [UInt8] {
        Keccak256.hash(try encodeData(name, value: value))
    }

    /// The domain separator: `hashStruct(EIP712Domain, domain)`.
    public func domainSeparator() throws(TypedDataError) -> [UInt8] {
        try hashStruct("EIP712Domain", value: domain)
    }

    /// The hash to sign: Keccak-256 of `0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)` (without the message
    /// hash when the primary type is `EIP712Domain`).
    ///
    /// - Throws: `TypedDataError`.
    public func signingHash() throws(TypedDataError) -> [UInt8] {
        var preimage: [UInt8] = [0x19, 0x01] + (try domainSeparator())
        if primaryType != "EIP712Domain" { preimage += try hashStruct(primaryType, value: message) }
        return Keccak256.hash(preimage)
    }

    private func encodeData(_ name: String, value: JSONValue, path: String, depth: Int) throws(TypedDataError)
        -> [UInt8]
    {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        guard let fields = types[name] else { throw .unknownType(name) }
        guard case .object(let members) = value else {
            throw .invalidValue(path: path, type: name, reason: "not an object")
        }
        // A member the type does not declare is not hashed: shown, it would be data the signature does not cover.
        for (member, _) in members where !fields.contains(where: { $0.name.utf8.elementsEqual(member.utf8) }) {
            throw .undeclaredMember(path: path, name: member)
        }
        var out = try typeHash(name)
        for field in fields {
            let fieldPath = path + "." + field.name
            // A missing member is null, as eth_signTypedData_v4 in MetaMask and eth-account reads it.
            out += try encodeField(field.type, value: value[field.name] ?? .null, path: fieldPath, depth: depth + 1)
        }
        return out
    }

    private func encodeField(_ type: String, value: JSONValue, path: String, depth: Int) throws(TypedDataError)
        -> [UInt8]
    {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        if value == .null {
            // v4: a null (or missing) struct, string or bytes value is the zero word; any other type needs a value.
            guard types[type] != nil || type == "string" || type == "bytes" else { throw .missingField(path: path) }
            return [UInt8](repeating: 0, count: 32)
        }
        let dims = try Self.arrayDimensions(type, owner: path)
        if let outer = dims.first {
            guard case .array(let items) = value else {
                throw .invalidValue(path: path, type: type, reason: "not an array")
            }
            if let outer, items.count != outer {
                throw .invalidValue(path: path, type: type, reason: "has \(items.count) items, not \(outer)")
            }
            let elementType = String(type[..<(type.lastIndex(of: "[") ?? type.endIndex)])
            var concatenated: [UInt8] = []
            for (i, item) in items.enumerated() {
                concatenated += try encodeField(elementType, value: item, path: "\(path)[\(i)]", depth: depth + 1)
            }
            return Keccak256.hash(concatenated)
        }
        if types[type] != nil {
            return Keccak256.hash(try encodeData(type, value: value, path: path, depth: depth + 1))
        }
        guard let atomic = AtomicType(type) else { throw .unknownType(type) }
        return try Self.encodeAtomic(atomic, type: type, value: value, path: path)
    }

    private static func encodeAtomic(_ atomic: AtomicType, type: String, value: JSONValue, path: String)
        throws(TypedDataError) -> [UInt8]
    {
        func bad(_ reason: String) -> TypedDataError { .invalidValue(path: path, type: type, reason: reason) }
        switch atomic {
        case .string:
            guard case .string(let text) = value else { throw bad("not a string") }
            return Keccak256.hash(Array(text.utf8))
        case .bytes:
            guard case .string(let text) = value, text.hasPrefix("0x"), let raw = Hex.decode(text) else {
                throw bad("not 0x-prefixed hex")
            }
            return Keccak256.hash(raw)
        case .fixedBytes(let n):
            guard case .string(let text) = value, text.hasPrefix("0x"), let raw = Hex.decode(text) else {
                throw bad("not 0x-prefixed hex")
            }
            guard raw.count <= n else { throw bad("longer than \(n) bytes") }
            return raw + [UInt8](repeating: 0, count: 32 - raw.count)
        case .address:
            guard case .string(let text) = value, text.hasPrefix("0x"), let raw = Hex.decode(text), raw.count == 20
            else { throw bad("not a 20-byte 0x address") }
            return [UInt8](repeating: 0, count: 12) + raw
        case .bool:
            guard case .bool(let flag) = value else { throw bad("not true or false") }
            return UInt256(flag ? 1 : 0).bigEndianBytes
        case .unsigned(let bits):
            let (negative, magnitude) = try integer(value, bad: bad)
            guard !negative || magnitude.isZero else { throw bad("negative") }
            guard magnitude.fits(bits: bits) else { throw bad("wider than \(bits) bits") }
            return magnitude.bigEndianBytes
        case .signed(let bits):
            let (negative, magnitude) = try integer(value, bad: bad)
            if negative, !magnitude.isZero {
                // -2^(bits-1) is the smallest value: magnitude - 1 must fit in bits - 1.
                let lessOne = magnitude.subtractingOne()
                guard lessOne.fits(bits: bits - 1) else { throw bad("below the \(bits)-bit range") }
                return lessOne.bitwiseNot().bigEndianBytes
            }
            guard magnitude.fits(bits: bits - 1) else { throw bad("above the \(bits)-bit range") }
            return magnitude.bigEndianBytes
        }
    }

    /// A JSON integer: a number literal without fraction or exponent, or a string of decimal or `0x` hex digits,
    /// with an optional minus sign.
    private static func integer(_ value: JSONValue, bad: (String) -> TypedDataError) throws(TypedDataError)
        -> (negative: Bool, magnitude: UInt256)
    {
        var text: String
        switch value {
        case .number(let literal): text = literal
        case .string(let s): text = s
        default: throw bad("not an integer")
        }
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        do {
            return (negative, try UInt256(string: text))
        } catch {
            throw bad("not an integer (\(text))")
        }
    }
}

extension UInt256 {
    /// Whether the value is below 2^bits.
    func fits(bits: Int) -> Bool {
        if bits >= 256 { return true }
        let bytes = bigEndianBytes
        let fullBytes = (256 - bits) / 8
        guard bytes.prefix(fullBytes).allSatisfy({ $0 == 0 }) else { return false }
        let partial = (256 - bits) % 8
        return partial == 0 || bytes[fullBytes] >> (8 - partial) == 0
    }

    /// The value minus one (the value must not be zero).
    func subtractingOne() -> UInt256 {
        var out = limbs
        for i in (0..<4).reversed() {
            if out[i] > 0 {
                out[i] -= 1
                break
            }
            out[i] = .max
        }
        return UInt256(limbs: out)
    }

    /// The bitwise complement (so `(m - 1).bitwiseNot()` is -m in two's complement).
    func bitwiseNot() -> UInt256 { UInt256(limbs: limbs.map { ~$0 }) }
}
