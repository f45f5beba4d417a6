import BitcoinCrypto
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// Bitcoin Core's miniscript unit tests in both contexts (Tests/Vectors/miniscript/miniscript_tests_tapscript.json,
/// bitcoin/bitcoin 016c68cf `fixed_tests`): every `Test(…)` call is run under P2WSH and under tapscript, as Core runs
/// it: validity in each context, the script bytes of each context, non-malleability, signature need, timelock mix,
/// opcode count, stack size, the witness size of each context and the execution stack size; the four calls the file
/// builds in loops (21-key `multi_a`, scripts over the P2WSH limits, the 1000-element execution stack) from the same
/// recipe.
@Suite("Miniscript vectors under P2WSH and tapscript (Bitcoin Core miniscript_tests)")
struct MiniscriptTapscriptVectorTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let miniscript: String?
        let generator: String?
        let script: String
        let tapscript: String
        let mode: [String]
        let ops: String?
        let stackSize: String?
        let maxWitSize: String?
        let maxTapWitSize: String?
        let stackExec: String?
        var testDescription: String { String((miniscript ?? generator ?? "?").prefix(60)) }
    }

    struct File: Decodable, Sendable {
        let cases: [Case]
        let generated: [Case]
    }

    /// One case in one context (the generated ones with their loop variable).
    struct Run: Sendable, CustomTestStringConvertible {
        let entry: Case
        let context: MiniscriptContext
        let miniscript: String
        let variables: [String: Int]
        var testDescription: String { "\(context.rawValue): \(miniscript.prefix(60))" }
    }

    static let file: File? = try? Vectors.json("miniscript/miniscript_tests_tapscript.json")

    /// The compressed public key of private key `i` (31 zero bytes, then the byte i), as Core's TestData makes them.
    static func publicKey(_ i: Int) -> String {
        let secret = [UInt8](repeating: 0, count: 31) + [UInt8(i)]
        // Keys 1…255 are valid private keys; nil (an empty key, refused by every parse) is unreachable.
        return (try? PrivateKey(secret: SecretBytes(copying: secret)))?.publicKey.compressed.hexString ?? ""
    }

    /// The miniscripts of the generated calls, built as the C++ loops build them.
    static func generatedRuns(_ entry: Case) -> [(String, [String: Int])] {
        switch entry.generator {
        case "ms_str_multi_a":
            return [("multi_a(1," + (1...21).map(publicKey).joined(separator: ",") + ")", [:])]
        case "ms_str_large":
            return [99, 110, 200].map { count in
                var text = ""
                for i in 0..<(count - 1) { text += "and_b(pk(\(publicKey(i + 1))),a:" }
                text += "pk(\(publicKey(count)))" + String(repeating: ")", count: count - 1)
                return (text, ["pk_count": count])
            }
        case "ms_stack_limit":
            // The file has two such calls: count 998, then one more level (999).
            return []
        default:
            return []
        }
    }

    static func stackLimit(_ count: Int) -> String {
        String(repeating: "and_b(older(1),a:", count: count) + "pk(\(publicKey(1)))"
            + String(repeating: ")", count: count)
    }

    static let runs: [Run] = {
        guard let file else { return [] }
        var out: [Run] = []
        for context in [MiniscriptContext.p2wsh, .tapscript] {
            for entry in file.cases {
                out.append(Run(entry: entry, context: context, miniscript: entry.miniscript ?? "", variables: [:]))
            }
            var stackLimitCount = 998
            for entry in file.generated {
                if entry.generator == "ms_stack_limit" {
                    out.append(
                        Run(
                            entry: entry, context: context, miniscript: stackLimit(stackLimitCount),
                            variables: ["count": stackLimitCount]))
                    stackLimitCount += 1
                    continue
                }
                for (text, variables) in generatedRuns(entry) {
                    out.append(Run(entry: entry, context: context, miniscript: text, variables: variables))
                }
            }
        }
        return out
    }()

    /// Evaluates the argument text of the C++ call: integers, the loop variables, `+`, `-`, `*` and parentheses.
    static func evaluate(_ text: String?, _ variables: [String: Int]) -> Int? {
        guard let text, text != "{}", text != "-1" else { return nil }
        var tokens: [String] = []
        var word = ""
        for char in text {
            if char.isLetter || char.isNumber || char == "_" {
                word.append(char)
                continue
            }
            if !word.isEmpty { tokens.append(word) }
            word = ""
            if char != " " { tokens.append(String(char)) }
        }
        if !word.isEmpty { tokens.append(word) }
        var index = 0
        func primary() -> Int {
            let token = tokens[index]
            index += 1
            if token == "(" {
                let value = sum()
                index += 1  // ")"
                return value
            }
            return Int(token) ?? variables[token] ?? Int.min
        }
        func product() -> Int {
            var value = primary()
            while index < tokens.count, tokens[index] == "*" {
                index += 1
                value *= primary()
            }
            return value
        }
        func sum() -> Int {
            var value = product()
            while index < tokens.count, tokens[index] == "+" || tokens[index] == "-" {
                let plus = tokens[index] == "+"
                index += 1
                let rhs = product()
                value = plus ? value + rhs : value - rhs
            }
            return value
        }
        return sum()
    }

    @Test("the vector file loads: 97 literal cases and 4 generated calls, multi_a and tapscript-only cases among them")
    func fileLoads() throws {
        let file = try #require(Self.file)
        #expect(file.cases.count == 97)
        #expect(file.generated.count == 4)
        #expect(file.cases.filter { $0.mode.contains("TAPSCRIPT_INVALID") }.count >= 8)
        #expect(file.cases.filter { $0.mode.contains("P2WSH_INVALID") }.count == 2)
        #expect(Self.runs.count == 2 * (97 + 1 + 3 + 2))
    }

    /// Runs `body` on a thread with a 512 MiB stack: the deepest generated cases nest 1000 fragments, and the debug
    /// build's recursive steps need more than a test thread's default stack for that.
    static func onLargeStack(_ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let thread = Thread {
            do { try body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        thread.stackSize = 512 << 20
        thread.start()
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    @Test("each case in each context", arguments: runs)
    func vector(_ run: Run) throws {
        try Self.onLargeStack { try Self.check(run) }
    }

    static func check(_ run: Run) throws {
        let entry = run.entry
        let invalid =
            entry.mode == ["INVALID"] || (entry.mode.contains("P2WSH_INVALID") && run.context == .p2wsh)
            || (entry.mode.contains("TAPSCRIPT_INVALID") && run.context == .tapscript)
        let parsed = Result { () throws(MiniscriptError) -> Miniscript in
            try Miniscript(string: run.miniscript, context: run.context)
        }
        if invalid {
            // Invalid as Core's IsValid sees it: no parse or type, or a script over the context's size limit.
            if case .success(let ms) = parsed {
                #expect(!ms.isWithinScriptSize, "unexpectedly valid")
            }
            return
        }
        let ms = try parsed.get()
        #expect(ms.isWithinScriptSize)
        #expect(ms.type.contains(.base), "top level B: \(ms.type)")
        let script = try ms.script()
        let expected = run.context == .p2wsh ? entry.script : (entry.tapscript == "=" ? entry.script : entry.tapscript)
        if expected != "?" { #expect(script.hexString == expected) }
        #expect(ms.isNonMalleable == entry.mode.contains("NONMAL"))
        #expect(ms.needsSignature == entry.mode.contains("NEEDSIG"))
        #expect(ms.hasTimelockMix == entry.mode.contains("TIMELOCKMIX"))
        if let ops = evaluate(entry.ops, run.variables) { #expect(ms.maxOps == ops) }
        if let stack = evaluate(entry.stackSize, run.variables) { #expect(ms.maxStackSize == stack) }
        let witness = run.context == .p2wsh ? entry.maxWitSize : entry.maxTapWitSize
        if let size = evaluate(witness, run.variables) { #expect(ms.maxWitnessSize == size) }
        if let exec = evaluate(entry.stackExec, run.variables) { #expect(ms.maxExecStackSize == exec) }
        // Printing and parsing again in the same context gives the same script (the sugar round-trips).
        let reparsed = try Miniscript(string: ms.description, context: run.context)
        #expect(try reparsed.script() == script)
    }

    @Test("tapscript: 1000 stack elements during execution are sane, 1001 are refused; P2WSH refuses both by size")
    func execStackLimit() throws {
        try Self.onLargeStack { try Self.checkExecStackLimit() }
    }

    static func checkExecStackLimit() throws {
        let atLimit = try Miniscript(string: stackLimit(998), context: .tapscript)
        #expect(atLimit.maxExecStackSize == 1000)
        try atLimit.checkSane()
        let over = try Miniscript(string: stackLimit(999), context: .tapscript)
        #expect(throws: MiniscriptError.execStackTooLarge(1001)) { try over.checkSane() }
        let wsh = try Miniscript(string: stackLimit(998), context: .p2wsh)
        #expect(throws: MiniscriptError.self) { try wsh.checkSane() }
        // Nesting beyond the parser's limit is refused with its position, not by running out of stack.
        let tooDeep = stackLimit(1100)
        let refusal = #expect(throws: MiniscriptError.self) { try Miniscript(string: tooDeep, context: .tapscript) }
        guard case .tooDeep = refusal else {
            Issue.record("expected tooDeep, got \(String(describing: refusal))")
            return
        }
    }

    @Test("multi is refused in tapscript and multi_a in P2WSH, each with the context named; the controls parse")
    func fragmentsByContext() throws {
        let a = Self.publicKey(1)
        let b = Self.publicKey(2)
        #expect(throws: MiniscriptError.notInContext("multi", context: "Tapscript", position: 0)) {
            try Miniscript(string: "multi(1,\(a),\(b))", context: .tapscript)
        }
        #expect(throws: MiniscriptError.notInContext("multi_a", context: "P2WSH", position: 0)) {
            try Miniscript(string: "multi_a(1,\(a),\(b))", context: .p2wsh)
        }
        _ = try Miniscript(string: "multi(1,\(a),\(b))", context: .p2wsh)
        _ = try Miniscript(string: "multi_a(1,\(a),\(b))", context: .tapscript)
        // x-only keys are tapscript keys only.
        let xOnly = String(a.dropFirst(2))
        _ = try Miniscript(string: "pk(\(xOnly))", context: .tapscript)
        #expect(throws: MiniscriptError.self) { try Miniscript(string: "pk(\(xOnly))", context: .p2wsh) }
    }

    @Test("d: is u under tapscript: thresh(2,dv:older(42),…) is valid there and not under P2WSH")
    func dWrapper() throws {
        let text = "thresh(2,dv:older(42),s:pk(\(Self.publicKey(1))),s:pk(\(Self.publicKey(2))))"
        let tap = try Miniscript(string: text, context: .tapscript)
        #expect(tap.type.contains(.u))
        #expect(throws: MiniscriptError.self) { try Miniscript(string: text, context: .p2wsh) }
    }
}
