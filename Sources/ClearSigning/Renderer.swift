public import Bitcoin
public import Codecs
public import Ethereum

/// A name the user trusts for an address (the spec's `local` source of `addressName`).
public struct AddressName: Sendable, Equatable {
    /// The chain the name holds on, or nil for every chain.
    public let chainID: UInt64?
    public let address: EthereumAddress
    public let name: String

    public init(chainID: UInt64?, address: EthereumAddress, name: String) {
        self.chainID = chainID
        self.address = address
        self.name = name
    }
}

/// The descriptors, tokens and names the signer trusts, and the rendering of calls through them (ERC-7730 v2).
public struct ClearSigningRegistry: Sendable {
    public let descriptors: [Descriptor]
    public let tokens: [TokenInfo]
    /// Local names (`addressName` with the `local` source); ENS names are never looked up (the signer is offline).
    public let names: [AddressName]

    public init(descriptors: [Descriptor], tokens: [TokenInfo], names: [AddressName] = []) {
        self.descriptors = descriptors
        self.tokens = tokens + descriptors.flatMap(\.tokens)
        self.names = names
    }

    /// The token at `address` on `chainID`: an entry of that chain first, then one valid on every chain.
    public func token(_ address: EthereumAddress, chainID: UInt64) -> TokenInfo? {
        tokens.first { $0.address == address && $0.chainID == chainID }
            ?? tokens.first { $0.address == address && $0.chainID == nil }
    }

    /// The descriptor and format that apply to `call`: same chain, same address, same selector; nil when none does.
    public func match(_ call: CallInput) -> (Descriptor, Descriptor.Format)? {
        for descriptor in descriptors where descriptor.context == .contract && !descriptor.isTemplate {
            guard descriptor.applies(chainID: call.chainID, address: call.to) else { continue }
            if let format = descriptor.format(selector: call.data) { return (descriptor, format) }
        }
        // An interface template (a descriptor with no deployments, such as the registry's ERC-20 one) applies only
        // to the tokens of the signer's own token list.
        guard tokens.contains(where: { $0.address == call.to && ($0.chainID == nil || $0.chainID == call.chainID) })
        else { return nil }
        for descriptor in descriptors where descriptor.context == .contract && descriptor.isTemplate {
            if let format = descriptor.format(selector: call.data) { return (descriptor, format) }
        }
        return nil
    }

    /// `call` shown through its descriptor, or nil when no stored descriptor applies.
    ///
    /// - Throws: `ClearSigningError` when the call does not decode by the descriptor's signature, or a `mustMatch`
    ///   field does not hold (the descriptor then does not apply; the caller treats the call as blind).
    public func render(_ call: CallInput) throws(ClearSigningError) -> ClearCall? {
        try render(call, depth: 0)
    }

    func render(_ call: CallInput, depth: Int) throws(ClearSigningError) -> ClearCall? {
        guard depth < 4, let (descriptor, format) = match(call), let function = format.function else { return nil }
        let arguments = try ABIDecoder.decodeCall(call.data, function: function)
        var renderer = Renderer(
            registry: self, descriptor: descriptor, call: call, arguments: arguments, depth: depth)
        return try renderer.render(format.json)
    }
}

/// A value a path resolved to: decoded ABI data, or a constant from the descriptor.
enum Resolved {
    case abi(ABIValue)
    case constant(JSONValue)

    var integer: UInt256? {
        switch self {
        case .abi(let v): v.integer
        case .constant(let j):
            if let t = j.numberText {
                (try? UInt256(string: t))
            } else if let s = j.string {
                try? UInt256(string: s)
            } else {
                nil
            }
        }
    }

    var address: EthereumAddress? {
        switch self {
        case .abi(let v): v.addressValue
        case .constant(let j): j.string.flatMap { try? EthereumAddress(string: $0) }
        }
    }
}

struct Renderer {
    let registry: ClearSigningRegistry
    let descriptor: Descriptor
    let call: CallInput
    let arguments: ABIValue
    let depth: Int
    var blind = false
    /// The index of the array element being shown: a parameter that points at an array is read at the same index.
    var elementIndex = 0
    /// The path of the group being shown: a parameter's relative path is read from the same place as the field's.
    var groupPrefix: [PathSegment] = []

    init(registry: ClearSigningRegistry, descriptor: Descriptor, call: CallInput, arguments: ABIValue, depth: Int) {
        self.registry = registry
        self.descriptor = descriptor
        self.call = call
        self.arguments = arguments
        self.depth = depth
    }

    mutating func render(_ format: JSONValue) throws(ClearSigningError) -> ClearCall {
        let intent: String
        if let text = format["intent"]?.string {
            intent = text
        } else if let members = format["intent"]?.members {
            intent = members.map { "\($0.0): \($0.1.string ?? "")" }.joined(separator: ", ")
        } else {
            intent = descriptor.name ?? "Contract call"
        }
        var fields: [ClearField] = []
        var byPath: [String: String] = [:]
        try collect(format["fields"]?.array ?? [], prefix: [], into: &fields, byPath: &byPath)
        var interpolated: String?
        if let template = format["interpolatedIntent"]?.string {
            interpolated = Self.interpolate(template, byPath)
        }
        return ClearCall(
            owner: descriptor.owner, intent: intent, interpolatedIntent: interpolated, fields: fields,
            hasBlindPart: blind || fields.contains { $0.nested?.hasBlindPart == true })
    }

    static func interpolate(_ template: String, _ values: [String: String]) -> String? {
        var result = ""
        var chars = Substring(template)
        while let c = chars.first {
            chars = chars.dropFirst()
            if c == "{" {
                if chars.first == "{" {
                    result.append("{")
                    chars = chars.dropFirst()
                    continue
                }
                guard let end = chars.firstIndex(of: "}") else { return nil }
                var key = String(chars[..<end]).trimmingSpaces
                if key.hasPrefix("#.") { key.removeFirst(2) }
                guard let value = values[key] else { return nil }
                result += value
                chars = chars[chars.index(after: end)...]
            } else if c == "}" {
                if chars.first == "}" { chars = chars.dropFirst() }
                result.append("}")
            } else {
                result.append(c)
            }
        }
        return result
    }

    /// Resolves `$ref` to `display.definitions` (the field's own keys win).
    func expand(_ field: JSONValue) -> JSONValue {
        guard let ref = field["$ref"]?.string, let definition = constant(ref) else { return field }
        let own = JSONValue.object((field.members ?? []).filter { $0.0 != "$ref" })
        return Descriptor.merge(definition, own)
    }

    mutating func collect(
        _ list: [JSONValue], prefix: [PathSegment], into fields: inout [ClearField], byPath: inout [String: String]
    ) throws(ClearSigningError) {
        for raw in list {
            let field = expand(raw)
            let label = field["label"]?.string ?? ""
            let pathText = field["path"]?.string
            if let group = field["fields"]?.array {
                let inner =
                    try pathText.map { (t) throws(ClearSigningError) in try Path(t, relativeTo: prefix).segments }
                    ?? prefix
                guard field["iteration"]?.string == "bundled" else {
                    try collect(group, prefix: inner, into: &fields, byPath: &byPath)
                    continue
                }
                // Bundled: the first element of each array, then the second of each, ...
                var columns: [[ClearField]] = []
                for child in group {
                    var column: [ClearField] = []
                    try collect([child], prefix: inner, into: &column, byPath: &byPath)
                    columns.append(column)
                }
                for row in 0..<(columns.map(\.count).max() ?? 0) {
                    for column in columns where row < column.count { fields.append(column[row]) }
                }
                continue
            }
            let values: [Resolved]
            if let pathText {
                let path = try Path(pathText, relativeTo: prefix)
                values = resolve(path)
            } else if let constantValue = field["value"] {
                values = [
                    constantValue.string.flatMap { $0.hasPrefix("$.") ? constant($0) : nil }.map(Resolved.constant)
                        ?? .constant(constantValue)
                ]
            } else {
                continue
            }
            // Visibility.
            let visible = field["visible"]
            if visible?.string == "never" { continue }
            if let list = visible?["mustMatch"]?.array {
                for value in values where !contains(list, value) {
                    throw .mustMatchFailed("the field \"\(label)\" has a value the descriptor does not allow")
                }
                continue
            }
            let hideIn = visible?["ifNotIn"]?.array
            groupPrefix = prefix
            for (index, value) in values.enumerated() {
                if let hideIn, contains(hideIn, value) { continue }
                elementIndex = index
                let field = try show(value, field: field, label: label)
                if let pathText {
                    byPath[pathText.hasPrefix("#.") ? String(pathText.dropFirst(2)) : pathText] = field.value
                }
                fields.append(field)
            }
            if values.isEmpty, field["visible"]?.string == "always" {
                fields.append(
                    ClearField(
                        label: label, value: "", nested: nil, warning: "the value is missing",
                        hadHiddenCharacters: false, rawValue: ""))
            }
        }
    }

    func contains(_ list: [JSONValue], _ value: Resolved) -> Bool {
        list.contains { item in
            if let a = Resolved.constant(item).integer, let b = value.integer { return a == b }
            if case .abi(.string(let bytes)) = value, let s = item.string { return Array(s.utf8) == bytes }
            return false
        }
    }

    /// A `$.`-path into the descriptor document.
    func constant(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("$.") else { return nil }
        var node: JSONValue? = descriptor.json
        for key in ref.dropFirst(2).split(separator: ".") { node = node?[String(key)] }
        return node
    }

    /// A parameter that may be a `$.` reference to a constant.
    func param(_ field: JSONValue, _ name: String) -> JSONValue? {
        guard let value = field["params"]?[name] else { return nil }
        if let text = value.string, text.hasPrefix("$.") { return constant(text) }
        return value
    }

    func resolve(_ path: Path) -> [Resolved] {
        switch path.root {
        case .descriptor:
            return constant(path.text).map { [.constant($0)] } ?? []
        case .container:
            guard case .key(let key)? = path.segments.first else { return [] }
            switch key {
            case "to": return [.abi(.address(call.to))]
            case "value": return [.abi(.uint(call.value))]
            case "from": return call.from.map { [.abi(.address($0))] } ?? []
            case "chainId": return [.abi(.uint(UInt256(call.chainID)))]
            default: return []
            }
        case .data:
            var current: [ABIValue] = [arguments]
            for segment in path.segments {
                var next: [ABIValue] = []
                for value in current {
                    switch (segment, value) {
                    case (.key(let key), .tuple(let members)):
                        if let member = members.first(where: { $0.name == key }) {
                            next.append(member.value)
                        } else if let i = Int(key), i >= 0, i < members.count {
                            next.append(members[i].value)
                        }
                    case (.index(let i), .array(let items)):
                        let j = i < 0 ? items.count + i : i
                        if j >= 0, j < items.count { next.append(items[j]) }
                    case (.index(let i), .tuple(let members)):
                        let j = i < 0 ? members.count + i : i
                        if j >= 0, j < members.count { next.append(members[j].value) }
                    case (.all, .array(let items)):
                        next += items
                    case (.slice(let a, let b), .bytes(let bytes)), (.slice(let a, let b), .string(let bytes)):
                        let n = bytes.count
                        let lo = a.map { $0 < 0 ? n + $0 : $0 } ?? 0
                        let hi = b.map { $0 < 0 ? n + $0 : $0 } ?? n
                        if lo >= 0, hi <= n, lo <= hi { next.append(.bytes(Array(bytes[lo..<hi]))) }
                    case (.slice(let a, let b), .array(let items)):
                        let n = items.count
                        let lo = a.map { $0 < 0 ? n + $0 : $0 } ?? 0
                        let hi = b.map { $0 < 0 ? n + $0 : $0 } ?? n
                        if lo >= 0, hi <= n, lo <= hi { next += items[lo..<hi] }
                    default: break
                    }
                }
                current = next
            }
            return current.map { .abi($0) }
        }
    }

    // MARK: Formats

    mutating func show(_ value: Resolved, field: JSONValue, label: String) throws(ClearSigningError) -> ClearField {
        let format = field["format"]?.string ?? "raw"
        var warning: String?
        var nested: ClearCall?
        let text: String
        switch format {
        case "raw":
            text = raw(value)
        case "addressName":
            if let address = value.address {
                (text, warning) = addressName(address, field: field)
            } else {
                text = raw(value)
            }
        case "tokenTicker":
            if let address = value.address, let token = token(address, chainID: chainParameter(field)) {
                text = token.symbol
            } else {
                text = raw(value)
                warning = "Unknown token"
            }
        case "interoperableAddressName":
            if case .abi(.bytes(let bytes)) = value, let shown = Self.interoperableAddress(bytes) {
                text = shown
            } else {
                text = raw(value)
                warning = "not an ERC-7930 Ethereum address"
            }
        case "tokenAmount":
            (text, warning) = tokenAmount(value, field: field)
        case "amount":
            if let amount = value.integer {
                if let threshold = param(field, "threshold").flatMap({ Resolved.constant($0).integer }),
                    amount >= threshold
                {
                    text = param(field, "message")?.string ?? "All"
                } else {
                    text = Self.decimal(amount, decimals: 18) + " " + Self.nativeTicker(call.chainID)
                }
            } else {
                text = raw(value)
            }
        case "date":
            if let seconds = value.integer?.uint64 {
                text = param(field, "encoding")?.string == "blockheight" ? "block \(seconds)" : Self.date(seconds)
            } else {
                text = raw(value)
            }
        case "duration":
            if let seconds = value.integer?.uint64 {
                let h = seconds / 3600
                let m = seconds / 60 % 60
                let s = seconds % 60
                text = (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
            } else {
                text = raw(value)
            }
        case "unit":
            if let amount = value.integer {
                let decimals = param(field, "decimals")?.int ?? 0
                let base = DisplayText.clean(param(field, "base")?.string ?? "")
                text = Self.unit(amount, decimals: decimals, prefix: param(field, "prefix")?.bool == true) + base
            } else {
                text = raw(value)
            }
        case "enum":
            let ref =
                field["params"]?["$ref"]?.string
                ?? field["params"]?["enumId"].flatMap { $0.string.map { "$.metadata.enums." + $0 } }
            if let ref, let table = constant(ref), let key = value.integer.map({ $0.description }),
                let name = table[key]?.string
            {
                text = name
            } else {
                text = raw(value)
                warning = "not a value the descriptor names"
            }
        case "calldata":
            (text, nested, warning) = try calldata(value, field: field)
        case "nftName":
            let id = value.integer.map { "#\($0)" } ?? raw(value)
            if let collection = param(field, "collection").flatMap({ Resolved.constant($0).address })
                ?? (field["params"]?["collectionPath"]?.string).flatMap({
                    try? resolve(Path($0, relativeTo: groupPrefix)).first?.address
                })
            {
                text = "\(collection.checksummed) \(id)"
            } else {
                text = id
            }
        case "chainId":
            text = value.integer.map { Self.chainName($0) } ?? raw(value)
        default:
            text = raw(value)
            warning = "shown raw: the format \"\(DisplayText.clean(format))\" is not one this signer reads"
        }
        let shown = DisplayText.show(text)
        return ClearField(
            label: label, value: shown.text, nested: nested, warning: warning,
            hadHiddenCharacters: shown.hadHiddenCharacters, rawValue: text)
    }

    func raw(_ value: Resolved) -> String {
        switch value {
        case .constant(let j): return j.string ?? j.numberText ?? ""
        case .abi(let v): return Self.raw(v)
        }
    }

    static func raw(_ value: ABIValue) -> String {
        switch value {
        case .uint(let v): return v.description
        case .int(let word):
            guard let top = word.first, top >= 0x80 else {
                return ((try? UInt256(bigEndian: word)) ?? .zero).description
            }
            var negated = word.map { ~$0 }
            var i = negated.count - 1
            while i >= 0 {
                negated[i] &+= 1
                if negated[i] != 0 { break }
                i -= 1
            }
            return "-" + ((try? UInt256(bigEndian: negated)) ?? .zero).description
        case .address(let a): return a.checksummed
        case .bool(let b): return b ? "true" : "false"
        case .bytes(let b): return "0x" + Hex.encode(b)
        case .string(let s): return String(decoding: s, as: UTF8.self)
        case .array(let items): return "[" + items.map(raw).joined(separator: ", ") + "]"
        case .tuple(let members): return "(" + members.map { raw($0.value) }.joined(separator: ", ") + ")"
        }
    }

    func token(_ address: EthereumAddress, chainID: UInt64? = nil) -> TokenInfo? {
        registry.token(address, chainID: chainID ?? call.chainID)
    }

    /// The chain a token lives on when the field names one (`chainIdPath` or `chainId`), else nil.
    func chainParameter(_ field: JSONValue) -> UInt64? {
        if let path = field["params"]?["chainIdPath"]?.string, let parsed = try? Path(path, relativeTo: groupPrefix) {
            return resolve(parsed).first?.integer?.uint64
        }
        return param(field, "chainId").flatMap { Resolved.constant($0).integer?.uint64 }
    }

    /// A parameter holding one address or a list of them (each may be a `$.` constant).
    func addresses(_ field: JSONValue, _ name: String) -> [EthereumAddress] {
        guard let value = param(field, name) else { return [] }
        return (value.array ?? [value]).compactMap { item in
            let resolved = item.string.flatMap { $0.hasPrefix("$.") ? constant($0) : item } ?? item
            return Resolved.constant(resolved).address
        }
    }

    /// An address as the review shows it.
    ///
    /// The user's trusted name for it, `Sender` when the descriptor says it stands for the sender, a token's symbol
    /// (with the address) when the descriptor's `types` say it is a token, else its ERC-55 form. ENS names are not
    /// looked up: the signer is offline.
    func addressName(_ address: EthereumAddress, field: JSONValue) -> (String, String?) {
        if addresses(field, "senderAddress").contains(address) { return ("Sender", nil) }
        let sources = field["params"]?["sources"]?.array?.compactMap(\.string)
        if sources == nil || sources?.contains("local") == true,
            let name = registry.names.first(where: {
                $0.address == address && ($0.chainID == nil || $0.chainID == call.chainID)
            })
        {
            return (name.name, nil)
        }
        // An address the descriptor says is a token, and the token list knows: its symbol, with the address.
        if field["params"]?["types"]?.array?.contains(where: { $0.string == "token" }) == true,
            let token = token(address)
        {
            return ("\(DisplayText.clean(token.symbol)) (\(address.checksummed))", nil)
        }
        if let sources, !sources.isEmpty, !sources.contains("local") {
            return (address.checksummed, "not looked up (the signer is offline): shown as the address")
        }
        return (address.checksummed, nil)
    }

    /// An ERC-7930 interoperable address of an EVM chain as `address@eip155:chain#CHECKSUM`.
    static func interoperableAddress(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 7, bytes[0] == 0, bytes[1] == 1, bytes[2] == 0, bytes[3] == 0 else { return nil }
        let referenceLength = Int(bytes[4])
        guard referenceLength <= 32, bytes.count == 5 + referenceLength + 1 + 20, bytes[5 + referenceLength] == 20,
            let chain = try? UInt256(bigEndian: Array(bytes[5..<5 + referenceLength])),
            let address = try? EthereumAddress(bytes: Array(bytes.suffix(20)))
        else { return nil }
        let checksum = Hex.encode(Array(Keccak256.hash(Array(bytes.dropFirst(2))).prefix(4))).uppercased()
        return "\(address.checksummed)@eip155:\(chain)#\(checksum)"
    }

    func tokenAmount(_ value: Resolved, field: JSONValue) -> (String, String?) {
        guard let amount = value.integer else { return (raw(value), nil) }
        var tokenAddress: EthereumAddress?
        let chainID = chainParameter(field) ?? call.chainID
        if let path = field["params"]?["tokenPath"]?.string, let parsed = try? Path(path, relativeTo: groupPrefix) {
            let candidates = resolve(parsed)
            tokenAddress =
                (candidates.indices.contains(elementIndex) ? candidates[elementIndex] : candidates.first)?
                .address
        } else if let constantToken = param(field, "token") {
            tokenAddress = Resolved.constant(constantToken).address
        }
        var natives: [EthereumAddress] = []
        if let native = param(field, "nativeCurrencyAddress") {
            for item in native.array ?? [native] {
                let resolved = item.string.flatMap { $0.hasPrefix("$.") ? constant($0) : item } ?? item
                if let a = Resolved.constant(resolved).address { natives.append(a) }
            }
        }
        let symbol: String
        let decimals: Int
        if let tokenAddress, natives.contains(tokenAddress) {
            symbol = Self.nativeTicker(chainID)
            decimals = 18
        } else if let tokenAddress, let token = token(tokenAddress, chainID: chainID) {
            symbol = DisplayText.clean(token.symbol)
            decimals = token.decimals
        } else if field["params"]?["tokenPath"] == nil, field["params"]?["token"] == nil {
            // No token named: the amount is in the called contract's own token when it is a known token.
            if let token = token(call.to) {
                symbol = DisplayText.clean(token.symbol)
                decimals = token.decimals
            } else {
                return (amount.description, "Unknown token")
            }
        } else {
            let location = tokenAddress.map { " \($0.checksummed)" } ?? ""
            return (amount.description, "Unknown token" + location)
        }
        if let threshold = param(field, "threshold").flatMap({ Resolved.constant($0).integer }), amount >= threshold {
            return ((param(field, "message")?.string ?? "Unlimited") + " " + symbol, nil)
        }
        return (Self.decimal(amount, decimals: decimals) + " " + symbol, nil)
    }

    mutating func calldata(_ value: Resolved, field: JSONValue) throws(ClearSigningError) -> (
        String, ClearCall?, String?
    ) {
        guard case .abi(.bytes(var data)) = value else { return (raw(value), nil, "the inner call is not call data") }
        func resolved(_ name: String) -> Resolved? {
            if let path = field["params"]?[name]?.string, let parsed = try? Path(path, relativeTo: groupPrefix) {
                return resolve(parsed).first
            }
            return param(field, name.replacingOccurrences(of: "Path", with: "")).map(Resolved.constant)
        }
        guard let callee = resolved("calleePath")?.address else {
            blind = true
            return ("0x" + Hex.encode(data), nil, "the inner call's target is unknown, so it is not shown in words")
        }
        // A selector given apart: the bytes hold only the arguments.
        switch resolved("selectorPath") {
        case .constant(let json)?:
            guard let text = json.string, let selector = Hex.decode(text), selector.count == 4 else {
                return (raw(value), nil, "the inner call's selector cannot be read")
            }
            data = selector + data
        case .abi(let selector)?:
            guard case .bytes(let bytes) = selector, bytes.count >= 4 else {
                return (raw(value), nil, "the inner call's selector cannot be read")
            }
            data = Array(bytes.prefix(4)) + data
        case nil:
            break
        }
        let inner = CallInput(
            chainID: resolved("chainIdPath")?.integer?.uint64 ?? call.chainID, to: callee,
            value: resolved("amountPath")?.integer ?? .zero,
            from: resolved("spenderPath")?.address ?? call.from, data: data)
        if data.isEmpty {
            return ("no call data (a plain transfer to \(callee.checksummed))", nil, nil)
        }
        if let nested = try registry.render(inner, depth: depth + 1) {
            return (nested.interpolatedIntent ?? nested.intent, nested, nil)
        }
        blind = true
        let hex = Hex.encode(data)
        let short = hex.count > 64 ? String(hex.prefix(8)) + "… (\(data.count) bytes)" : hex
        return ("0x" + short + " to " + callee.checksummed, nil, "no descriptor for the inner call: it is blind")
    }

    // MARK: Number and time forms

    /// `amount / 10^decimals`, trailing zeros dropped, no exponent.
    static func decimal(_ amount: UInt256, decimals: Int) -> String {
        let digits = amount.description
        guard decimals > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let whole = padded.dropLast(decimals)
        var fraction = padded.suffix(decimals)
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return fraction.isEmpty ? String(whole) : whole + "." + fraction
    }

    /// A `unit` value: with `prefix`, the largest SI prefix (k, M, G, T, P, E) that keeps a whole part (`36ks`).
    static func unit(_ amount: UInt256, decimals: Int, prefix: Bool) -> String {
        guard prefix else { return decimal(amount, decimals: decimals) }
        let wholeDigits = amount.description.count - decimals
        let steps = min(max((wholeDigits - 1) / 3, 0), 6)
        let symbol = ["", "k", "M", "G", "T", "P", "E"][steps]
        return decimal(amount, decimals: decimals + 3 * steps) + symbol
    }

    static func date(_ seconds: UInt64) -> String {
        let days = Int64(seconds / 86_400)
        let rest = Int(seconds % 86_400)
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        // The registry's form (as Ledger devices show it): a 12-hour clock with AM/PM, in UTC.
        let hour = Int64(rest / 3600)
        let clock = "\(two(hour % 12 == 0 ? 12 : hour % 12)):\(two(Int64(rest / 60 % 60))):\(two(Int64(rest % 60)))"
        return "\(y)-\(two(m))-\(two(d)) \(clock) \(hour < 12 ? "AM" : "PM") UTC"
    }

    static func nativeTicker(_ chainID: UInt64) -> String {
        switch chainID {
        case 56, 97: "BNB"
        case 137, 80002: "POL"
        case 43114: "AVAX"
        case 100: "xDAI"
        case 42220: "CELO"
        case 250: "FTM"
        case 146: "S"
        case 9745: "XPL"
        case 5000: "MNT"
        default: "ETH"
        }
    }

    static func chainName(_ chainID: UInt256) -> String {
        switch chainID.uint64 {
        case 1: "Ethereum Mainnet"
        case 10: "OP Mainnet"
        case 137: "Polygon"
        case 8453: "Base"
        case 42161: "Arbitrum One"
        case 11_155_111: "Sepolia"
        default: "chain \(chainID)"
        }
    }
}

/// One step of a path.
enum PathSegment: Equatable {
    case key(String)
    case index(Int)
    case slice(Int?, Int?)
    case all
}

/// A descriptor path: `#.` (the call's arguments, the default), `@.` (the transaction) or `$.` (the descriptor).
struct Path {
    enum Root { case data, container, descriptor }
    let root: Root
    let segments: [PathSegment]
    let text: String

    init(_ text: String, relativeTo prefix: [PathSegment]) throws(ClearSigningError) {
        self.text = text
        var body = Substring(text)
        if body.hasPrefix("$.") {
            root = .descriptor
            segments = []
            return
        } else if body.hasPrefix("@.") {
            root = .container
            body = body.dropFirst(2)
        } else if body.hasPrefix("#.") {
            root = .data
            body = body.dropFirst(2)
        } else {
            root = .data
        }
        var parsed: [PathSegment] = root == .data && !text.hasPrefix("#.") ? prefix : []
        for part in body.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = part
            if let bracket = rest.firstIndex(of: "[") {
                let key = rest[..<bracket]
                if !key.isEmpty { parsed.append(.key(String(key))) }
                rest = rest[bracket...]
                while rest.hasPrefix("[") {
                    guard let close = rest.firstIndex(of: "]") else {
                        throw .invalidDescriptor("the path \"\(text.prefix(60))\" has an unclosed [")
                    }
                    let inside = rest[rest.index(after: rest.startIndex)..<close]
                    if inside.isEmpty {
                        parsed.append(.all)
                    } else if let colon = inside.firstIndex(of: ":") {
                        let a = inside[..<colon]
                        let b = inside[inside.index(after: colon)...]
                        parsed.append(.slice(a.isEmpty ? nil : Int(a), b.isEmpty ? nil : Int(b)))
                    } else if let i = Int(inside) {
                        parsed.append(.index(i))
                    } else {
                        throw .invalidDescriptor("the path \"\(text.prefix(60))\" has an index that is not a number")
                    }
                    rest = rest[rest.index(after: close)...]
                }
                guard rest.isEmpty else { throw .invalidDescriptor("the path \"\(text.prefix(60))\" cannot be read") }
            } else {
                guard !rest.isEmpty else {
                    throw .invalidDescriptor("the path \"\(text.prefix(60))\" has an empty step")
                }
                parsed.append(.key(String(rest)))
            }
        }
        segments = parsed
    }
}
