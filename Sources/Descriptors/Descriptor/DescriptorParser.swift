import Bitcoin

/// A recursive-descent parser of descriptor text into a `DescriptorExpression`, enforcing the context rules of
/// BIP381–387 and 389 and reporting positions.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki
struct DescriptorParser {
    /// Where an expression appears.
    enum Context: String {
        case top = "top level"
        case sh = "sh()"
        case wsh = "wsh()"
        case tapscript = "tr() script tree"
    }

    private let text: [Character]
    private var position = 0

    init(_ text: String) { self.text = Array(text) }

    /// Parses the whole text as one top-level expression.
    mutating func parseDescriptor() throws(DescriptorError) -> DescriptorExpression {
        let expression = try parseExpression(.top)
        guard position == text.count else { throw .trailingCharacters(position: position) }
        return expression
    }

    private mutating func expect(_ char: Character) throws(DescriptorError) {
        guard position < text.count, text[position] == char else {
            throw .syntax(expected: "'\(char)'", position: position)
        }
        position += 1
    }

    /// Reads up to the next `,`, `)` or `}` at this nesting level.
    private mutating func argument() -> (text: Substring, position: Int) {
        let start = position
        var depth = 0
        while position < text.count {
            let c = text[position]
            if c == "(" { depth += 1 }
            if c == ")" || c == "," || c == "}" {
                if depth == 0 { break }
                if c == ")" { depth -= 1 }
            }
            position += 1
        }
        return (Substring(String(text[start..<position])), start)
    }

    private mutating func key(_ context: DescriptorKey.Context) throws(DescriptorError) -> DescriptorKey {
        let (arg, start) = argument()
        if arg.hasPrefix("musig(") { return try DescriptorKey.parseMuSig(arg, position: start, context: context) }
        if arg.contains("musig(") {
            throw .invalidKeyOrigin(reason: "musig() takes no key origin", position: start)
        }
        if arg.contains("(") {
            throw .invalidKey(reason: "expected a key expression, found a script expression", position: start)
        }
        return try DescriptorKey.parse(arg, position: start, context: context)
    }

    private static func keyContext(_ context: Context) -> DescriptorKey.Context {
        switch context {
        case .top, .sh: .legacy
        case .wsh: .segwitV0
        case .tapscript: .taproot
        }
    }

    private mutating func parseExpression(_ context: Context) throws(DescriptorError) -> DescriptorExpression {
        let start = position
        var name = ""
        while position < text.count, text[position].isLetter || text[position] == "_" {
            name.append(text[position])
            position += 1
        }
        guard !name.isEmpty, position < text.count, text[position] == "(" else {
            throw .syntax(expected: "a script expression such as wpkh(…)", position: start)
        }
        position += 1
        func forbid(_ contexts: [Context]) throws(DescriptorError) {
            if contexts.contains(context) {
                throw .notAllowed(function: name, context: context.rawValue, position: start)
            }
        }
        let expression: DescriptorExpression
        switch name {
        case "pk":
            expression = .pk(try key(Self.keyContext(context)))
        case "pkh":
            try forbid([.tapscript])
            expression = .pkh(try key(Self.keyContext(context)))
        case "wpkh":
            try forbid([.wsh, .tapscript])
            expression = .wpkh(try key(.segwitV0))
        case "combo":
            try forbid([.sh, .wsh, .tapscript])
            expression = .combo(try key(.legacy))
        case "sh":
            try forbid([.sh, .wsh, .tapscript])
            expression = .sh(try parseExpression(.sh))
        case "wsh":
            try forbid([.wsh, .tapscript])
            expression = .wsh(try parseWitnessScript())
        case "multi", "sortedmulti":
            try forbid([.tapscript])
            let (threshold, keys) = try multisigArguments(Self.keyContext(context), start: start)
            let maximum = context == .top ? 3 : (context == .sh ? 15 : 20)
            guard keys.count <= maximum else {
                throw .tooManyKeys(count: keys.count, maximum: maximum, position: start)
            }
            expression = .multi(threshold: threshold, keys: keys, sorted: name == "sortedmulti")
        case "multi_a", "sortedmulti_a":
            try forbid([.top, .sh, .wsh])
            let (threshold, keys) = try multisigArguments(.taproot, start: start)
            guard keys.count <= 999 else { throw .tooManyKeys(count: keys.count, maximum: 999, position: start) }
            expression = .multiA(threshold: threshold, keys: keys, sorted: name == "sortedmulti_a")
        case "raw":
            try forbid([.sh, .wsh, .tapscript])
            let (arg, at) = argument()
            guard let bytes = try? [UInt8](hex: String(arg)) else { throw .invalidHex(position: at) }
            expression = .raw(Script(bytes))
        case "addr":
            try forbid([.sh, .wsh, .tapscript])
            let (arg, at) = argument()
            guard let address = try? Address(string: String(arg)) else { throw .invalidAddress(position: at) }
            expression = .addr(address)
        case "tr":
            try forbid([.sh, .wsh, .tapscript])
            let internalKey = try key(.taproot)
            var tree: DescriptorTapTree?
            if position < text.count, text[position] == "," {
                position += 1
                tree = try parseTree(depth: 0)
            }
            expression = .tr(internalKey: internalKey, tree: tree)
        case "rawtr":
            try forbid([.sh, .wsh, .tapscript])
            expression = .rawtr(try key(.taproot))
        case "musig":
            throw .notAllowed(function: name, context: "a script position (musig() is a key in tr())", position: start)
        default:
            throw .unknownFunction(name, position: start)
        }
        try expect(")")
        return expression
    }

    /// The script inside `wsh()`: the plain descriptor forms `pk`, `pkh`, `multi` and `sortedmulti` as before (and the
    /// other descriptor functions, which refuse themselves there), anything else as a sane miniscript (BIP379).
    private mutating func parseWitnessScript() throws(DescriptorError) -> DescriptorExpression {
        try parseDescriptorOrMiniscript(.wsh, .p2wsh, miniscriptNames: [])
    }

    /// A descriptor function or a sane miniscript of `miniscriptContext`, whichever starts at this position.
    ///
    /// A descriptor function is parsed as such, so that each refuses itself with its own message where it is not
    /// allowed. `miniscriptNames` are descriptor function names that are read as miniscript fragments here (`multi`
    /// in a `tr()` leaf, which the tapscript context then refuses by name).
    private mutating func parseDescriptorOrMiniscript(
        _ context: Context, _ miniscriptContext: MiniscriptContext, miniscriptNames: Set<String>
    ) throws(DescriptorError) -> DescriptorExpression {
        let start = position
        var name = ""
        while position < text.count, text[position].isLetter || text[position] == "_" {
            name.append(text[position])
            position += 1
        }
        let descriptorFunctions: Set<String> = [
            "pk", "pkh", "multi", "sortedmulti", "musig", "wpkh", "sh", "wsh", "combo", "tr", "rawtr", "raw", "addr",
            "multi_a", "sortedmulti_a",
        ]
        let plain =
            descriptorFunctions.subtracting(miniscriptNames).contains(name) && position < text.count
            && text[position] == "("
        position = start
        if plain { return try parseExpression(context) }
        let (arg, at) = argument()
        let miniscript: Miniscript
        do {
            miniscript = try Miniscript(string: String(arg), offset: at, context: miniscriptContext)
            try miniscript.checkSane()
        } catch {
            throw .miniscript(error)
        }
        return .miniscript(miniscript)
    }

    private mutating func parseTree(depth: Int) throws(DescriptorError) -> DescriptorTapTree {
        guard depth <= 128 else { throw .tapTreeTooDeep(position: position) }
        if position < text.count, text[position] == "{" {
            position += 1
            let left = try parseTree(depth: depth + 1)
            try expect(",")
            let right = try parseTree(depth: depth + 1)
            try expect("}")
            return .branch(left, right)
        }
        return .leaf(try parseTapLeaf())
    }

    /// A `tr()` leaf: `pk`, `multi_a` and `sortedmulti_a` as descriptors, anything else as tapscript miniscript.
    ///
    /// The other descriptor functions refuse themselves there; the rest is a sane tapscript miniscript (BIP379,
    /// x-only keys, `multi_a`). `pkh` is read as miniscript's fragment (BIP386 lists `tr(KEY,pkh(KEY))` as valid:
    /// `DUP HASH160 <hash> EQUALVERIFY CHECKSIG` of the x-only key), and `multi` as miniscript's, which tapscript
    /// refuses by name.
    private mutating func parseTapLeaf() throws(DescriptorError) -> DescriptorExpression {
        try parseDescriptorOrMiniscript(.tapscript, .tapscript, miniscriptNames: ["multi", "pkh"])
    }

    private mutating func multisigArguments(_ context: DescriptorKey.Context, start: Int) throws(DescriptorError)
        -> (Int, [DescriptorKey])
    {
        let (thresholdText, at) = argument()
        guard !thresholdText.isEmpty, thresholdText.count <= 4, thresholdText.allSatisfy(\.isASCII),
            thresholdText.allSatisfy(\.isNumber), let threshold = Int(thresholdText)
        else { throw .invalidThreshold(String(thresholdText), position: at) }
        var keys: [DescriptorKey] = []
        while position < text.count, text[position] == "," {
            position += 1
            keys.append(try key(context))
        }
        guard (1...max(keys.count, 1)).contains(threshold), !keys.isEmpty else {
            throw .thresholdOutOfRange(threshold: threshold, keys: keys.count, position: at)
        }
        return (threshold, keys)
    }
}
