import Bitcoin
import BitcoinCrypto

/// Where a miniscript runs, which decides its keys, fragments, typing and limits (BIP379).
public enum MiniscriptContext: String, Sendable, Hashable {
    /// `wsh()`: 33-byte keys, `multi` (CHECKMULTISIG), at most 201 opcodes, 100 witness items and 3600 bytes of script.
    case p2wsh = "P2WSH"
    /// A taproot leaf (BIP342): 32-byte x-only keys, `multi_a` (CHECKSIGADD) instead of `multi`, `d:` is `u`
    /// (MINIMALIF is consensus), no opcode or script-size limit of its own but at most 1000 stack elements during
    /// execution, and a script small enough for a standard spending transaction.
    case tapscript = "Tapscript"

    /// The largest script: 3600 bytes (P2WSH standardness), or for a tapscript what still leaves room in a standard
    /// transaction (400,000 weight) for the largest witness and one input and output (Bitcoin Core's MaxScriptSize).
    public var maxScriptSize: Int {
        switch self {
        case .p2wsh: return 3600
        case .tapscript:
            // 4+4 version/locktime, 1 input count, 41 input, 1 output count, 43 P2WSH output: ×4 weight, +2 marker.
            let leeway = (8 + 1 + 41 + 1 + 43) * 4 + 2
            // 1000 stack items of at most 65 bytes, and the largest control block (33 + 32 × 128 bytes).
            let largestWitness = 3 + (1 + 65) * 1000 + 3 + (33 + 32 * 128)
            let size = 400_000 - leeway - largestWitness
            return size - 5  // its compact size prefix
        }
    }
}

/// A miniscript for `wsh()` (P2WSH context) or a taproot leaf (tapscript context): parsed, type-checked, compiled to
/// script, satisfied and described.
///
/// `init(string:)` accepts any valid expression (as Bitcoin Core's `miniscript::FromString` does); `checkSane()` is
/// the stricter test descriptors apply: top level B, a signature on every path, non-malleable, no time/height lock mix
/// in one path, no duplicate key, and within the resource limits of the context (P2WSH: 201 opcodes, 100 witness
/// items, 3600 bytes; tapscript: 1000 stack elements during execution and `MiniscriptContext.maxScriptSize`).
/// - SeeAlso: https://bitcoin.sipa.be/miniscript/, BIP379
public struct Miniscript: Sendable, CustomStringConvertible {
    /// The expression tree.
    public let node: MiniscriptNode
    /// P2WSH or tapscript.
    public let context: MiniscriptContext
    let analysis: MiniscriptAnalysis

    /// Wraps a tree, checking that every expression in it type-checks in `context`.
    ///
    /// - Throws: `MiniscriptError.invalidType`.
    public init(_ node: MiniscriptNode, context: MiniscriptContext = .p2wsh) throws(MiniscriptError) {
        let analysis = node.analysis(context)
        guard analysis.isValid else {
            throw .invalidType(
                Self.firstInvalid(node, context).string { $0.string(includingPrivateKeys: false) })
        }
        self.node = node
        self.context = context
        self.analysis = analysis
    }

    /// Parses miniscript text in `context`, then type-checks it.
    ///
    /// Keys are descriptor key expressions (hex keys, xpubs with origins and `/<0;1>/*` steps; under tapscript also
    /// x-only, 64 hex digits); `offset` is added to error positions (the text's place in a descriptor).
    ///
    /// - Throws: `MiniscriptError` naming what is wrong and where.
    public init(string: String, offset: Int = 0, context: MiniscriptContext = .p2wsh) throws(MiniscriptError) {
        var parser = MiniscriptParser(string, offset: offset, context: context)
        try self.init(try parser.parseAll(), context: context)
    }

    private static func firstInvalid(_ node: MiniscriptNode, _ context: MiniscriptContext) -> MiniscriptNode {
        for child in node.children where !child.analysis(context).isValid { return firstInvalid(child, context) }
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
    /// Whether the top level is B, K or W (leaves one element on the stack).
    private var leavesElement: Bool { !type.intersection([.base, .key, .wrapped]).isEmpty }
    /// The most stack elements a non-malleable satisfaction needs (Bitcoin Core's GetStackSize), if satisfiable.
    public var maxStackSize: Int? { analysis.effectSat.map { $0.netdiff + (leavesElement ? 1 : 0) } }
    /// The most stack elements during the execution of a satisfaction (Bitcoin Core's GetExecStackSize); tapscript
    /// allows 1000.
    public var maxExecStackSize: Int? { analysis.effectSat.map { $0.exec + (leavesElement ? 1 : 0) } }
    /// The most witness bytes of a satisfaction, without the script (and control block) (Bitcoin Core's
    /// GetWitnessSize).
    public var maxWitnessSize: Int? { analysis.witnessSat }
    /// Whether the script is no larger than the context allows (`MiniscriptContext.maxScriptSize`).
    public var isWithinScriptSize: Bool { (try? script().bytes.count).map { $0 <= context.maxScriptSize } ?? true }

    /// The text form (sugar restored, public keys, no checksum).
    public var description: String { node.string { $0.string(includingPrivateKeys: false) } }

    /// The same miniscript with every key replaced by `transform(key)`.
    func mapKeys(_ transform: (DescriptorKey) -> DescriptorKey) -> Miniscript {
        Miniscript(unchecked: node.mapKeys(transform), context: context, analysis: analysis)
    }

    private init(unchecked node: MiniscriptNode, context: MiniscriptContext, analysis: MiniscriptAnalysis) {
        self.node = node
        self.context = context
        self.analysis = analysis
    }

    /// Checks the rules a descriptor's miniscript must meet, in Bitcoin Core's order of reporting.
    ///
    /// - Throws: `MiniscriptError.notTopLevelB`, `.tooManyOps`, `.tooManyStackItems`, `.scriptTooLarge`,
    ///   `.timelockMix`, `.malleable`, `.noSignatureNeeded` or `.duplicateKey`.
    public func checkSane() throws(MiniscriptError) {
        guard type.contains(.base) else { throw .notTopLevelB(type: type.description) }
        switch context {
        case .p2wsh:
            if let ops = maxOps, ops > 201 { throw .tooManyOps(ops) }
            if let items = analysis.stackSat, items > 100 { throw .tooManyStackItems(items) }
        case .tapscript:
            // No opcode limit in tapscript (BIP342), but the stack may not exceed 1000 elements during execution.
            if let items = maxExecStackSize, items > 1000 { throw .execStackTooLarge(items) }
        }
        if let size = try? script().bytes.count, size > context.maxScriptSize {
            throw .scriptTooLarge(size, limit: context.maxScriptSize)
        }
        if hasTimelockMix { throw .timelockMix }
        // The same key written twice, or two texts (another origin, xprv and xpub) that derive the same key.
        var seen: Set<String> = []
        var derived: Set<[UInt8]> = []
        for key in keys {
            let text = key.string(includingPrivateKeys: false)
            guard seen.insert(text).inserted else { throw .duplicateKey(text) }
            if let bytes = try? Descriptor.keyBytes(key, index: 0, path: 0, tapscript: context == .tapscript) {
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
    private let context: MiniscriptContext
    private var position = 0
    private var depth = 0

    /// The deepest nesting of fragments and wrapper groups (`a:`, `sln:`) accepted.
    ///
    /// Deeper text is refused before the recursive steps (type check, script, satisfaction) could exhaust the stack.
    /// Bitcoin Core's deepest unit test (1000 stack elements in tapscript) nests 1000 `and_b(…,a:…)` levels, 2000
    /// here.
    static let maxDepth = 2100

    init(_ text: String, offset: Int, context: MiniscriptContext = .p2wsh) {
        self.text = Array(text)
        self.offset = offset
        self.context = context
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
            return try DescriptorKey.parse(
                Substring(arg), position: at, context: context == .tapscript ? .taproot : .segwitV0)
        } catch {
            throw .key(error)
        }
    }

    private mutating func comma() throws(MiniscriptError) { try expect(",") }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func expression() throws(MiniscriptError) -> MiniscriptNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw .tooDeep(position: here) }
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
        case "thresh", "multi", "multi_a":
            if name == "multi", context == .tapscript {
                throw .notInContext("multi", context: context.rawValue, position: start)
            }
            if name == "multi_a", context == .p2wsh {
                throw .notInContext("multi_a", context: context.rawValue, position: start)
            }
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
                // CHECKMULTISIG takes at most 20 keys; multi_a at most 999 (Bitcoin Core's MAX_PUBKEYS_PER_MULTI_A).
                guard !keys.isEmpty, keys.count <= (name == "multi" ? 20 : 999), (1...keys.count).contains(k) else {
                    throw .invalidNumber(kText, position: kAt)
                }
                node = name == "multi" ? .multi(k, keys) : .multiA(k, keys)
            }
        default:
            throw .unknownFragment(name, position: start)
        }
        try expect(")")
        return node
    }
}
