import Foundation
import TestSupport
import Testing

/// No command's `run()` in the executables is longer than `limit` lines.
///
/// The executables parse arguments, call one library entry point and print (docs/architecture.md, "Where decisions
/// live"; issue 28 item 3).
/// Lines are counted as /work/runlen.py counts them: from the `func run()` line to the line where its braces close.
@Suite("Executables: short run() functions")
struct RunLengthTests {
    /// The longest `run()` allowed, in lines.
    static let limit = 30

    /// The commands (paths under `Sources/`) allowed a longer `run()`: none since issue 28 moved every flow into
    /// the libraries.
    static let allowedOverLimit: Set<String> = []

    /// Each `func run()` in `text`: the line it starts on (from 1) and its length in lines.
    static func runs(in text: String) -> [(line: Int, length: Int)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var result: [(line: Int, length: Int)] = []
        for (start, line) in lines.enumerated() where line.contains(/\bfunc run\(\)/) {
            var depth = 0
            var opened = false
            for end in start..<lines.count {
                depth += lines[end].count { $0 == "{" } - lines[end].count { $0 == "}" }
                if lines[end].contains("{") { opened = true }
                if opened && depth <= 0 {
                    result.append((start + 1, end - start + 1))
                    break
                }
            }
        }
        return result
    }

    /// Every `run()` of the two executables: file (under `Sources/`), line and length.
    static func executableRuns() throws -> [(file: String, line: Int, length: Int)] {
        var result: [(file: String, line: Int, length: Int)] = []
        for executable in ["airlock-signer", "airlock-watcher"] {
            let dir = Vectors.packageRoot.appendingPathComponent("Sources/\(executable)")
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                result += runs(in: text).map { ("\(executable)/\(file)", $0.line, $0.length) }
            }
        }
        return result
    }

    @Test("no run() in the executables is over the limit, beyond the commands still being moved")
    func runFunctionsAreShort() throws {
        let runs = try Self.executableRuns()
        #expect(runs.count > 40, "found the commands' run() functions (\(runs.count))")
        for run in runs where run.length > Self.limit && !Self.allowedOverLimit.contains(run.file) {
            Issue.record(
                "\(run.file):\(run.line): run() is \(run.length) lines (limit \(Self.limit)); move its logic into a library flow"
            )
        }
    }

    @Test("the count finds a run() one line over the limit and passes one at the limit")
    func countingControl() {
        func source(bodyLines: Int) -> String {
            let body = (0..<bodyLines).map { "        print(\($0))" }.joined(separator: "\n")
            return "struct Command {\n    func run() throws {\n\(body)\n    }\n}\n"
        }
        // `func run()` line + body + closing brace.
        #expect(Self.runs(in: source(bodyLines: Self.limit - 2)).map(\.length) == [Self.limit])
        #expect(Self.runs(in: source(bodyLines: Self.limit - 1)).map(\.length) == [Self.limit + 1])
        #expect(Self.runs(in: source(bodyLines: 3)).map(\.line) == [2])
        // Braces inside the body are balanced out; a `run(x:)` is not a command's run().
        let nested = "func run() {\n    if a {\n        b()\n    }\n}\nfunc run(x: Int) {\n}\n"
        #expect(Self.runs(in: nested).map(\.length) == [5])
    }
}
