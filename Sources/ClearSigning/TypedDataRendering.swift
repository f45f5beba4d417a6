public import Codecs
public import Ethereum

extension ClearSigningRegistry {
    /// The descriptor and format that apply to an EIP-712 message: the domain's chain id and verifying contract are
    /// one of the descriptor's deployments (or the domain hashes to its `domainSeparator`), every member of the
    /// descriptor's `domain` is the message's, and the primary type's `encodeType` is a format key.
    public func match(_ typedData: TypedData) -> (Descriptor, Descriptor.Format)? {
        guard let encodeType = try? typedData.encodeType(typedData.primaryType) else { return nil }
        let chainID = (try? typedData.domainChainID())??.uint64
        let contract = typedData.domain["verifyingContract"]?.string.flatMap { try? EthereumAddress(string: $0) }
        let separator = try? typedData.domainSeparator()
        let wanted = Self.compactType(encodeType)
        for descriptor in descriptors {
            guard case .eip712(let domain) = descriptor.context else { continue }
            if let expected = descriptor.domainSeparator, separator != expected { continue }
            if !descriptor.deployments.isEmpty || descriptor.domainSeparator == nil {
                guard let chainID, let contract, descriptor.applies(chainID: chainID, address: contract) else {
                    continue
                }
            }
            let domainMatches = (domain?.members ?? []).allSatisfy { name, value in
                guard let actual = typedData.domain[name] else { return false }
                if let a = value.string, let b = actual.string {
                    return name == "verifyingContract" ? a.lowercased() == b.lowercased() : a == b
                }
                return (value.numberText ?? value.string) == (actual.numberText ?? actual.string)
            }
            guard domainMatches else { continue }
            if let format = descriptor.formats.first(where: { Self.compactType($0.key) == wanted }) {
                return (descriptor, format)
            }
        }
        return nil
    }

    /// An EIP-712 message shown through its descriptor, or nil when no stored descriptor applies.
    ///
    /// - Throws: `ClearSigningError` when the message's values do not fit its types, or a `mustMatch` field fails.
    public func render(_ typedData: TypedData, from: EthereumAddress?) throws(ClearSigningError) -> ClearCall? {
        guard let (descriptor, format) = match(typedData),
            let contract = typedData.domain["verifyingContract"]?.string.flatMap({ try? EthereumAddress(string: $0) }),
            let chainID = (try? typedData.domainChainID())??.uint64
        else { return nil }
        let message = try Self.value(typedData.message, type: typedData.primaryType, types: typedData.types, depth: 0)
        let input = CallInput(chainID: chainID, to: contract, value: .zero, from: from, data: [])
        var renderer = Renderer(registry: self, descriptor: descriptor, call: input, arguments: message, depth: 0)
        return try renderer.render(format.json)
    }

    static func compactType(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != " " }.map(Character.init)).replacingOccurrences(of: ",", with: ", ")
    }

    /// A message value as an ABI value, by its EIP-712 type.
    static func value(_ json: JSONValue, type: String, types: [String: [TypedData.Field]], depth: Int)
        throws(ClearSigningError) -> ABIValue
    {
        guard depth < 32 else { throw .invalidCalldata("the message nests too deep") }
        let bad = ClearSigningError.invalidCalldata("a message value does not fit its type \(type.prefix(40))")
        if type.hasSuffix("]"), let open = type.lastIndex(of: "[") {
            guard let items = json.array else { throw bad }
            var values: [ABIValue] = []
            for item in items {
                values.append(try value(item, type: String(type[..<open]), types: types, depth: depth + 1))
            }
            return .array(values)
        }
        if let fields = types[type] {
            var members: [(name: String, value: ABIValue)] = []
            for field in fields {
                guard let member = json[field.name] else { throw bad }
                members.append((field.name, try value(member, type: field.type, types: types, depth: depth + 1)))
            }
            return .tuple(members)
        }
        switch type {
        case "address":
            // EIP-712 encoders take an address in any letter case; its 20 bytes are what is signed.
            guard let text = json.string, text.utf8.count == 42, let bytes = Hex.decode(text),
                let address = try? EthereumAddress(bytes: bytes)
            else { throw bad }
            return .address(address)
        case "bool":
            guard let flag = json.bool else { throw bad }
            return .bool(flag)
        case "string":
            guard let text = json.string else { throw bad }
            return .string(Array(text.utf8))
        default:
            break
        }
        if type.hasPrefix("bytes") {
            guard let text = json.string, let bytes = Hex.decode(text) else { throw bad }
            return .bytes(bytes)
        }
        let text = json.numberText ?? json.string
        if type.hasPrefix("uint") {
            guard let text, let number = try? UInt256(string: text) else { throw bad }
            return .uint(number)
        }
        if type.hasPrefix("int") {
            guard let text else { throw bad }
            let negative = text.hasPrefix("-")
            guard let magnitude = try? UInt256(string: negative ? String(text.dropFirst()) : text) else { throw bad }
            var word = magnitude.bigEndianBytes
            if negative, !magnitude.isZero {
                word = word.map { ~$0 }
                var i = word.count - 1
                while i >= 0 {
                    word[i] &+= 1
                    if word[i] != 0 { break }
                    i -= 1
                }
            }
            return .int(word)
        }
        throw bad
    }
}
