import Bitcoin

/// Why a miniscript was refused: positions are character offsets into the text parsed (the descriptor text when it
/// came from a descriptor).
public enum MiniscriptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text does not follow the grammar: what was expected, and where.
    case syntax(expected: String, position: Int)
    /// A fragment name that is not in the supported Miniscript set, with its position.
    case unknownFragment(String, position: Int)
    /// A fragment the context does not have: `multi` in tapscript, `multi_a` in P2WSH.
    case notInContext(String, context: String, position: Int)
    /// A wrapper letter that does not exist (`a s c d v j n l u t`).
    case unknownWrapper(Character, position: Int)
    /// Fragments nested deeper than `MiniscriptParser.maxDepth` (2100) levels, a wrapper group counting as one.
    case tooDeep(position: Int)
    /// A number that is not plain decimal, or outside its range (`older`/`after`: 1 to 2^31-1; `thresh`/`multi`:
    /// 1 to the number of arguments; `multi`: at most 20 keys).
    case invalidNumber(String, position: Int)
    /// A hash argument of the wrong length or not hex.
    case invalidHash(String, position: Int)
    /// A key expression the descriptor rules refuse.
    case key(DescriptorError)
    /// An expression whose arguments do not have the types the fragment needs (e.g. `and_v(1,1)`: X must be V).
    case invalidType(String)
    /// The top level is not of type B.
    case notTopLevelB(type: String)
    /// Not sane: a satisfaction could be spent without a signature, which anyone can then malleate or take.
    case noSignatureNeeded
    /// Not sane: some satisfactions can be malleated by a third party.
    case malleable
    /// Not sane: one spending path needs both a height and a time lock of the same kind, which no transaction meets.
    case timelockMix
    /// Not sane: the same key appears twice.
    case duplicateKey(String)
    /// Over the consensus limit of 201 non-push opcodes per script.
    case tooManyOps(Int)
    /// Over the standardness limit of 100 witness stack items for P2WSH.
    case tooManyStackItems(Int)
    /// Over the script size limit of the context (3600 bytes for P2WSH; `MiniscriptContext.maxScriptSize`).
    case scriptTooLarge(Int, limit: Int)
    /// Over the tapscript limit of 1000 stack elements during execution.
    case execStackTooLarge(Int)

    public var description: String {
        switch self {
        case .syntax(let expected, let position): "miniscript: expected \(expected) at position \(position)"
        case .unknownFragment(let name, let position): "miniscript: unknown fragment '\(name)' at position \(position)"
        case .notInContext(let name, let context, let position):
            "miniscript: '\(name)' is not available in \(context) (position \(position))"
        case .tooDeep(let position):
            "miniscript: nested more than \(MiniscriptParser.maxDepth) levels deep at position \(position)"
        case .unknownWrapper(let char, let position): "miniscript: unknown wrapper '\(char):' at position \(position)"
        case .invalidNumber(let text, let position): "miniscript: invalid number '\(text)' at position \(position)"
        case .invalidHash(let text, let position): "miniscript: invalid hash '\(text)' at position \(position)"
        case .key(let error): "miniscript: \(error)"
        case .invalidType(let text): "miniscript: '\(text)' does not type-check"
        case .notTopLevelB(let type): "miniscript: the top level must be of type B, not \(type)"
        case .noSignatureNeeded: "miniscript is not sane: some spending path needs no signature"
        case .malleable: "miniscript is not sane: its satisfactions are malleable"
        case .timelockMix: "miniscript is not sane: a spending path mixes height and time locks"
        case .duplicateKey(let key): "miniscript is not sane: key \(key) appears more than once"
        case .tooManyOps(let n): "miniscript: \(n) opcodes, over the limit of 201"
        case .tooManyStackItems(let n): "miniscript: \(n) witness items, over the P2WSH limit of 100"
        case .scriptTooLarge(let n, let limit): "miniscript: script of \(n) bytes, over the limit of \(limit)"
        case .execStackTooLarge(let n): "miniscript: \(n) stack elements during execution, over the limit of 1000"
        }
    }
}
