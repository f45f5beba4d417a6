import BitcoinCrypto

/// A miniscript for `wsh()` (P2WSH context): parsed, type-checked, compiled to script, satisfied and described.
///
/// `init(string:)` accepts any valid expression (as Bitcoin Core's `miniscript::FromString` does); `checkSane()` is
/// the stricter test descriptors apply: top level B, a signature on every path, non-malleable, no time/height lock mix
/// in one path, no duplicate key, and within the resource limits (201 opcodes, 100 witness items, 3600 bytes).
/// - SeeAlso: https://bitcoin.sipa.be/miniscript/, BIP379
public struct Miniscript: Sendable, CustomStringConvertible {
    /// The expression tree.
    public let node: MiniscriptNode
    let analysis: MiniscriptAnalysis

    /// Wraps a tree, checking that every expression in it type-checks.
    ///
    /// - Throws: `MiniscriptError.invalidType`.
    public init(_ node: MiniscriptNode) throws(MiniscriptError) {
        let analysis = node.analysis()
        guard analysis.isValid else {
            throw .invalidType(Self.firstInvalid(node).string { $0.string(includingPrivateKeys: false) })
        }
        self.node = node
        self.analysis = analysis
    }

    /// Parses miniscript text with descriptor key expressions (hex keys, xpubs with origins and `/<0;1>/*` steps),
    /// then type-checks it; `offset` is added to error positions (the text's place in a descriptor).
    ///
    /// - Throws: `MiniscriptError` naming what is wrong and where.
    public init(string: String, offset: Int = 0) throws(MiniscriptError) {
        var parser = MiniscriptParser(string, offset: offset)
        try self.init(try parser.parseAll())
    }

    private static func firstInvalid(_ node: MiniscriptNode) -> MiniscriptNode {
        for child in node.children where !child.analysis().isValid { return firstInvalid(child) }
        return node
    }

    /// The type of the top-level expression.
    public var type: MiniscriptType { analysis.type }
    /// Every key, in order of appearance.
    public var keys: [DescriptorKey] { node.keys }
    /// Whether every satisfaction is non-malleable (property m).
    public var isNonMalleable: Bool { analysis.type.contains(.m) }
    /// Whether every satisfaction needs a signature (property s).
    public var needsSignature: Bool { analysis.type.contains(.s) }
    /// Whether some spending path combines a height and a time lock (no property k).
    public var hasTimelockMix: Bool { !analysis.type.contains(.k) }
    /// The most non-push opcodes a satisfaction executes (static count plus CHECKMULTISIG keys), if satisfiable.
    public var maxOps: Int? { analysis.opsSat.map { analysis.opsCount + $0 } }
    /// The most stack items a satisfaction needs, not counting the witness script, if satisfiable.
    public var maxSatisfactionItems: Int? { analysis.stackSat }

    /// The text form (sugar restored, public keys, no checksum).
    public var description: String { node.string { $0.string(includingPrivateKeys: false) } }

    /// The same miniscript with every key replaced by `transform(key)`.
    func mapKeys(_ transform: (DescriptorKey) -> DescriptorKey) -> Miniscript {
        Miniscript(unchecked: node.mapKeys(transform), analysis: analysis)
    }

    private init(unchecked node: MiniscriptNode, analysis: MiniscriptAnalysis) {
        self.node = node
        self.analysis = analysis
    }

    /// Checks the rules a descriptor's miniscript must meet, in Bitcoin Core's order of reporting.
    ///
    /// - Throws: `MiniscriptError.notTopLevelB`, `.tooManyOps`, `.tooManyStackItems`, `.scriptTooLarge`,
    ///   `.timelockMix`, `.malleable`, `.noSignatureNeeded` or `.duplicateKey`.
    public func checkSane() throws(MiniscriptError) {
        guard type.contains(.base) else { throw .notTopLevelB(type: type.description) }
        if let ops = maxOps, ops > 201 { throw .tooManyOps(ops) }
        if let items = analysis.stackSat, items > 100 { throw .tooManyStackItems(items) }
        if let size = try? script().bytes.count, size > 3600 { throw .scriptTooLarge(size) }
        if hasTimelockMix { throw .timelockMix }
        // The same key written twice, or two texts (another origin, xprv and xpub) that derive the same key.
        var seen: Set<String> = []
        var derived: Set<[UInt8]> = []
        for key in keys {
            let text = key.string(includingPrivateKeys: false)
            guard seen.insert(text).inserted else { throw .duplicateKey(text) }
            if let bytes = try? key.publicKey(at: 0, path: 0).key.compressed {
                guard derived.insert(bytes).inserted else { throw .duplicateKey(text) }
            }
        }
        guard isNonMalleable else { throw .malleable }
        guard needsSignature else { throw .noSignatureNeeded }
    }

    /// Whether `checkSane()` passes.
    public var isSane: Bool { (try? checkSane()) != nil }
}

/// A recursive-descent parser of miniscript text.
struct MiniscriptParser {
    private let text: [Character]
    private let offset: Int
    private var position = 0

    init(_ text: String, offset: Int) {
        self.text = Array(text)
        self.offset = offset
    }

    private var here: Int { offset + position }

    mutating func parseAll() throws(MiniscriptError) -> MiniscriptNode {
        let node = try expression()
        guard position == text.count else { throw .syntax(expected: "the end of the miniscript", position: here) }
        return node
    }

    private mutating func expect(_ char: Character) throws(MiniscriptError) {
        guard position < text.count, text[position] == char else {
            throw .syntax(expected: "'\(char)'", position: here)
        }
        position += 1
    }

    /// The text up to the next `,` or `)` (an argument that is not an expression).
    private mutating func plainArgument() -> (String, Int) {
        let start = here
        var out = ""
        while position < text.count, text[position] != ",", text[position] != ")" {
            out.append(text[position])
            position += 1
        }
        return (out, start)
    }

    private mutating func number(max: UInt64) throws(MiniscriptError) -> UInt64 {
        let (arg, at) = plainArgument()
        guard !arg.isEmpty, arg.count <= 10, arg.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt64(arg),
            value >= 1, value <= max
        else { throw .invalidNumber(arg, position: at) }
        return value
    }

    private mutating func hash(_ length: Int) throws(MiniscriptError) -> [UInt8] {
        let (arg, at) = plainArgument()
        guard arg.count == length * 2, let bytes = try? [UInt8](hex: arg) else { throw .invalidHash(arg, position: at) }
        return bytes
    }

    private mutating func key() throws(MiniscriptError) -> DescriptorKey {
        let (arg, at) = plainArgument()
        if arg.contains("(") {
            throw .key(.invalidKey(reason: "expected a key expression, found a script expression", position: at))
        }
        do {
            return try DescriptorKey.parse(Substring(arg), position: at, context: .segwitV0)
        } catch {
            throw .key(error)
        }
    }

    private mutating func comma() throws(MiniscriptError) { try expect(",") }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func expression() throws(MiniscriptError) -> MiniscriptNode {
        let start = here
        var name = ""
        while position < text.count, text[position].isLetter || text[position].isNumber || text[position] == "_" {
            name.append(text[position])
            position += 1
        }
        if position < text.count, text[position] == ":" {
            guard !name.isEmpty else { throw .syntax(expected: "wrapper letters before ':'", position: start) }
            position += 1
            var node = try expression()
            for (index, letter) in name.enumerated().reversed() {
                switch letter {
                case "a": node = .alt(node)
                case "s": node = .swap(node)
                case "c": node = .check(node)
                case "d": node = .dupIf(node)
                case "v": node = .verify(node)
                case "j": node = .nonZero(node)
                case "n": node = .zeroNotEqual(node)
                case "t": node = .andV(node, .one)
                case "l": node = .orI(.zero, node)
                case "u": node = .orI(node, .zero)
                default: throw .unknownWrapper(letter, position: start + index)
                }
            }
            return node
        }
        if name == "0" || name == "1", position == text.count || text[position] != "(" {
            return name == "0" ? .zero : .one
        }
        guard !name.isEmpty, position < text.count, text[position] == "(" else {
            throw .syntax(expected: "a miniscript fragment such as pk(…)", position: start)
        }
        position += 1
        let node: MiniscriptNode
        switch name {
        case "pk": node = .check(.pkK(try key()))
        case "pkh": node = .check(.pkH(try key()))
        case "pk_k": node = .pkK(try key())
        case "pk_h": node = .pkH(try key())
        case "older": node = .older(UInt32(try number(max: 0x7FFF_FFFF)))
        case "after": node = .after(UInt32(try number(max: 0x7FFF_FFFF)))
        case "sha256": node = .sha256(try hash(32))
        case "hash256": node = .hash256(try hash(32))
        case "ripemd160": node = .ripemd160(try hash(20))
        case "hash160": node = .hash160(try hash(20))
        case "and_v", "and_b", "or_b", "or_c", "or_d", "or_i", "and_n":
            let x = try expression()
            try comma()
            let y = try expression()
            switch name {
            case "and_v": node = .andV(x, y)
            case "and_b": node = .andB(x, y)
            case "or_b": node = .orB(x, y)
            case "or_c": node = .orC(x, y)
            case "or_d": node = .orD(x, y)
            case "or_i": node = .orI(x, y)
            default: node = .andOr(x, y, .zero)
            }
        case "andor":
            let x = try expression()
            try comma()
            let y = try expression()
            try comma()
            node = .andOr(x, y, try expression())
        case "thresh", "multi":
            let (kText, kAt) = plainArgument()
            guard !kText.isEmpty, kText.count <= 4, kText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let k = Int(kText)
            else { throw .invalidNumber(kText, position: kAt) }
            if name == "thresh" {
                var subs: [MiniscriptNode] = []
                while position < text.count, text[position] == "," {
                    position += 1
                    subs.append(try expression())
                }
                guard (1...max(subs.count, 1)).contains(k), !subs.isEmpty else {
                    throw .invalidNumber(kText, position: kAt)
                }
                node = .thresh(k, subs)
            } else {
                var keys: [DescriptorKey] = []
                while position < text.count, text[position] == "," {
                    position += 1
                    keys.append(try key())
                }
                guard !keys.isEmpty, keys.count <= 20, (1...keys.count).contains(k) else {
                    throw .invalidNumber(kText, position: kAt)
                }
                node = .multi(k, keys)
            }
        default:
            throw .unknownFragment(name, position: start)
        }
        try expect(")")
        return node
    }
}
