import Bitcoin
public import Codecs
public import Ethereum

/// One `{chainId, address}` deployment a descriptor binds to.
public struct Deployment: Sendable, Hashable {
    public let chainID: UInt64
    public let address: EthereumAddress
}

/// Token metadata a descriptor carries (`metadata.token`), or one entry of a token list.
public struct TokenInfo: Sendable, Equatable {
    public let chainID: UInt64?
    public let address: EthereumAddress?
    public let symbol: String
    public let decimals: Int
    public let name: String?

    public init(chainID: UInt64?, address: EthereumAddress?, symbol: String, decimals: Int, name: String? = nil) {
        self.chainID = chainID
        self.address = address
        self.symbol = symbol
        self.decimals = decimals
        self.name = name
    }
}

/// An ERC-7730 v2 descriptor after its `includes` are merged: the context it binds to and how it shows calls.
public struct Descriptor: Sendable {
    /// Which requests the descriptor can apply to.
    public enum Context: Sendable, Equatable {
        /// A contract's calls (calldata context).
        case contract
        /// EIP-712 messages of a domain.
        case eip712(domain: JSONValue?)
    }

    /// One entry of `display.formats`: a function signature (calldata) or an `encodeType` (EIP-712) and its format.
    public struct Format: Sendable {
        public let key: String
        /// The parsed function, for the calldata context.
        public let function: ABIFunction?
        /// The primary type name of the `encodeType` key, for the EIP-712 context.
        public let primaryType: String?
        public let json: JSONValue
    }

    /// The merged descriptor document.
    public let json: JSONValue
    public let context: Context
    public let deployments: [Deployment]
    public let formats: [Format]
    /// `metadata.owner`, or nil.
    public let owner: String?
    /// `context.$id` or `metadata.contractName`, for the import review.
    public let name: String?
    /// `metadata.token`, bound to each deployment.
    public let tokens: [TokenInfo]
    /// `context.eip712.domainSeparator`: the hash the message's EIP-712 domain must have, or nil.
    public let domainSeparator: [UInt8]?

    /// The major `$schema` version read.
    public static let supportedMajorVersion = 2

    /// Parses `bytes`; `include` returns the bytes of a file named by `includes`, given as a path relative to the
    /// folder of the descriptor (`./includes/base.json`; an include's own includes are joined to its folder).
    public init(
        bytes: [UInt8], include: (String) throws(ClearSigningError) -> [UInt8]
    ) throws(ClearSigningError) {
        let document = try Self.parse(bytes)
        try Self.checkSchema(document)
        try self.init(merged: try Self.resolvingIncludes(document, folder: "", include: include, depth: 0))
    }

    /// How many files deep `includes` may nest (a descriptor, its include, and that file's include, ...).
    public static let maximumIncludeDepth = 4

    /// `document` with its `includes` merged in (the including file wins), recursively.
    static func resolvingIncludes(
        _ document: JSONValue, folder: String, include: (String) throws(ClearSigningError) -> [UInt8], depth: Int
    ) throws(ClearSigningError) -> JSONValue {
        guard let includes = document["includes"] else { return document }
        guard depth < maximumIncludeDepth else {
            throw .invalidDescriptor("its \"includes\" nest more than \(maximumIncludeDepth) files deep")
        }
        let names: [String]
        if let one = includes.string {
            names = [one]
        } else if let many = includes.array?.compactMap(\.string), many.count == includes.array?.count {
            names = many
        } else {
            throw .invalidDescriptor("\"includes\" is neither a file name nor a list of them")
        }
        var result = removing("includes", from: document)
        for name in names {
            let path = joinedPath(folder, name)
            var included = try parse(try include(path))
            if included["$schema"] != nil { try checkSchema(included) }
            let slash = path.lastIndex(of: "/")
            let inner = slash.map { String(path[..<$0]) } ?? ""
            included = try resolvingIncludes(included, folder: inner, include: include, depth: depth + 1)
            result = merge(included, result)
        }
        return result
    }

    /// `name` (relative, `./` allowed) joined to `folder`, with `.` and `..` steps resolved.
    static func joinedPath(_ folder: String, _ name: String) -> String {
        var parts: [Substring] = folder.isEmpty ? [] : folder.split(separator: "/")
        for part in name.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    /// Builds a descriptor from an already-merged document (the vault stores merged documents).
    public init(merged document: JSONValue) throws(ClearSigningError) {
        guard document.members != nil else { throw .invalidDescriptor("the file is not a JSON object") }
        try Self.checkSchema(document)
        json = document
        guard let contextJSON = document["context"] else { throw .invalidDescriptor("it has no \"context\"") }
        let bound: JSONValue
        if let contract = contextJSON["contract"] {
            context = .contract
            bound = contract
        } else if let eip712 = contextJSON["eip712"] {
            context = .eip712(domain: eip712["domain"])
            bound = eip712
        } else {
            throw .invalidDescriptor("its \"context\" is neither \"contract\" nor \"eip712\"")
        }
        var deployments: [Deployment] = []
        for entry in bound["deployments"]?.array ?? [] {
            guard let chain = entry["chainId"].flatMap(Self.chainID), let text = entry["address"]?.string,
                let address = try? EthereumAddress(string: text)
            else { throw .invalidDescriptor("a deployment is not a {chainId, address} pair") }
            deployments.append(Deployment(chainID: chain, address: address))
        }
        if let separator = bound["domainSeparator"] {
            guard context != .contract, let text = separator.string, let bytes = Hex.decode(text), bytes.count == 32
            else { throw .invalidDescriptor("its \"domainSeparator\" is not a 32-byte hex value") }
            domainSeparator = bytes
        } else {
            domainSeparator = nil
        }
        guard !deployments.isEmpty || (context == .contract && bound["deployments"] == nil) || domainSeparator != nil
        else {
            throw .invalidDescriptor("it names no deployment (chain id and address)")
        }
        self.deployments = deployments
        owner = document["metadata"]?["owner"]?.string
        name = contextJSON["$id"]?.string ?? document["metadata"]?["contractName"]?.string
        guard let formatMembers = document["display"]?["formats"]?.members else {
            throw .invalidDescriptor("it has no \"display.formats\"")
        }
        var formats: [Format] = []
        for (key, value) in formatMembers {
            switch context {
            case .contract:
                formats.append(
                    Format(
                        key: key, function: try ABIFunction(signature: key, canonicalTypesOnly: true),
                        primaryType: nil, json: value))
            case .eip712:
                let primary = String(key.prefix { $0 != "(" }).trimmingSpaces
                guard !primary.isEmpty else {
                    throw .invalidDescriptor("the format key \"\(key.prefix(60))\" names no type")
                }
                formats.append(Format(key: key, function: nil, primaryType: primary, json: value))
            }
        }
        var seen: Set<[UInt8]> = []
        for format in formats {
            if let function = format.function, !seen.insert(function.selector).inserted {
                throw .invalidDescriptor("two formats share the selector of \(function.canonical)")
            }
        }
        self.formats = formats
        for format in formats {
            try Self.checkFields(format.json["fields"]?.array ?? [], document: document, depth: 0)
        }
        var tokens: [TokenInfo] = []
        if let token = document["metadata"]?["token"], let symbol = token["ticker"]?.string ?? token["symbol"]?.string,
            let decimals = token["decimals"]?.int
        {
            for deployment in deployments {
                tokens.append(
                    TokenInfo(
                        chainID: deployment.chainID, address: deployment.address, symbol: symbol, decimals: decimals,
                        name: token["name"]?.string))
            }
        }
        self.tokens = tokens
    }

    /// Whether this is an interface template (a calldata descriptor without deployments, such as one for every ERC-20
    /// token); a template applies only to the tokens of the signer's token list.
    public var isTemplate: Bool { deployments.isEmpty }

    /// Whether the descriptor binds to `address` on `chainID`.
    public func applies(chainID: UInt64, address: EthereumAddress) -> Bool {
        deployments.contains { $0.chainID == chainID && $0.address == address }
    }

    /// The format of the function whose selector opens `calldata`.
    public func format(selector: some Collection<UInt8>) -> Format? {
        let wanted = Array(selector.prefix(4))
        return formats.first { $0.function?.selector == wanted }
    }

    /// The field formats of ERC-7730 v2 (its Reference section); a descriptor naming another is refused.
    public static let knownFormats: Set<String> = [
        "raw", "addressName", "calldata", "amount", "tokenAmount", "nftName", "date", "duration", "unit", "enum",
        "chainId", "tokenTicker", "interoperableAddressName",
    ]

    /// Refuses a field whose `$ref` names no definition, whose format the spec does not define, or whose enum
    /// reference names no enum (checked on import, so a descriptor never fails half-way through a review).
    static func checkFields(_ fields: [JSONValue], document: JSONValue, depth: Int) throws(ClearSigningError) {
        guard depth < 8 else { throw .invalidDescriptor("its field groups nest too deep") }
        for raw in fields {
            var field = raw
            if let ref = raw["$ref"]?.string {
                guard let definition = lookup(ref, in: document), definition.members != nil else {
                    throw .invalidDescriptor(
                        "a field refers to \"\(DisplayText.clean(String(ref.prefix(60))))\", which the descriptor does not define"
                    )
                }
                field = merge(definition, raw)
            }
            if let group = field["fields"]?.array {
                try checkFields(group, document: document, depth: depth + 1)
                continue
            }
            guard let format = field["format"]?.string else { continue }
            guard knownFormats.contains(format) else {
                throw .invalidDescriptor(
                    "a field has the format \"\(DisplayText.clean(String(format.prefix(40))))\", which ERC-7730 does not define"
                )
            }
            if format == "enum" {
                let ref =
                    field["params"]?["$ref"]?.string
                    ?? field["params"]?["enumId"]?.string.map { "$.metadata.enums." + $0 }
                guard let ref, lookup(ref, in: document)?.members != nil else {
                    throw .invalidDescriptor("an enum field refers to an enumeration the descriptor does not define")
                }
            }
        }
    }

    /// A `$.`-path into `document`.
    static func lookup(_ ref: String, in document: JSONValue) -> JSONValue? {
        guard ref.hasPrefix("$.") else { return nil }
        var node: JSONValue? = document
        for key in ref.dropFirst(2).split(separator: ".") { node = node?[String(key)] }
        return node
    }

    static func parse(_ bytes: [UInt8]) throws(ClearSigningError) -> JSONValue {
        do {
            return try JSONValue(json: bytes)
        } catch {
            throw .invalidDescriptor("the file is not valid JSON (\(error.description))")
        }
    }

    /// Refuses a `$schema` whose major version is not 2 (`erc7730-v2.schema.json`, `erc7730-v2.1.0.schema.json`).
    static func checkSchema(_ document: JSONValue) throws(ClearSigningError) {
        guard let schema = document["$schema"]?.string else {
            throw .invalidDescriptor("it has no \"$schema\", so its format version is unknown")
        }
        guard let range = schema.range(of: "erc7730-v") else {
            throw .invalidDescriptor("its \"$schema\" does not name an ERC-7730 schema")
        }
        let digits = schema[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard let major = Int(digits) else {
            throw .invalidDescriptor("its \"$schema\" does not name an ERC-7730 schema version")
        }
        guard major == supportedMajorVersion else {
            throw .unsupportedVersion(
                "the descriptor is written for ERC-7730 version \(major); this signer reads version 2 descriptors only")
        }
    }

    static func chainID(_ value: JSONValue) -> UInt64? {
        if let text = value.numberText { return UInt64(text) }
        return nil
    }

    /// `includer` over `included`: objects merge key by key (the includer wins), `fields` lists merge by `path`.
    static func merge(_ included: JSONValue, _ includer: JSONValue) -> JSONValue {
        guard let base = included.members, let over = includer.members else { return includer }
        var result = base
        for (key, value) in over {
            if let i = result.firstIndex(where: { $0.0 == key }) {
                if key == "fields", let a = result[i].1.array, let b = value.array {
                    result[i].1 = .array(mergeFields(a, b))
                } else {
                    result[i].1 = merge(result[i].1, value)
                }
            } else {
                result.append((key, value))
            }
        }
        return .object(result)
    }

    static func mergeFields(_ base: [JSONValue], _ over: [JSONValue]) -> [JSONValue] {
        var result = base
        for field in over {
            if let path = field["path"]?.string, let i = result.firstIndex(where: { $0["path"]?.string == path }) {
                result[i] = merge(result[i], field)
            } else {
                result.append(field)
            }
        }
        return result
    }

    static func removing(_ key: String, from document: JSONValue) -> JSONValue {
        guard let members = document.members else { return document }
        return .object(members.filter { $0.0 != key })
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
