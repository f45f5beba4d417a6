import ArgumentParser
import BitcoinCrypto
import Foundation

/// The `main` of both executables: parses, runs, and maps every way out to an exit code of the CLI contract
/// (docs/architecture.md section 2) in one place.
///
/// ArgumentParser exits 64 (`EX_USAGE`) for parse and validation errors; the contract says 1. `--help`,
/// `--version` and the completion scripts still print on stdout and exit 0. Under `--json` a usage error is also
/// printed on stdout as the error object of `ErrorReporting`.
public enum CommandMain {
    /// Parses `arguments` as `Root`, runs the chosen command and exits.
    public static func run<Root: AsyncParsableCommand>(_ root: Root.Type, arguments: [String]) async -> Never {
        StandardOutput.ignoreBrokenPipe()
        var command: any ParsableCommand
        do {
            command = try await root.asyncParseAsRoot(arguments)
        } catch {
            exit(root, error: error, arguments: arguments)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ExitCode {
            finish(error.rawValue)
        } catch let error where error is CLIError || error is any FailureClassifying {
            finish(ErrorReporting.report(error, json: JSONMode.isRequested(arguments)).rawValue)
        } catch {
            exit(root, error: error, arguments: arguments)
        }
        finish(ExitStatus.ok.rawValue)
    }

    /// Exits with `code` after flushing stdout; a reader that closed stdout early ends a successful command quietly
    /// with 0 (`StandardOutput`), and leaves a failure's code as it is.
    private static func finish(_ code: Int32) -> Never {
        if code == ExitStatus.ok.rawValue { StandardOutput.flush() } else { fflush(nil) }
        Foundation.exit(code)
    }

    /// Leaves after an ArgumentParser error: help and version on stdout with 0, usage errors on stderr with 1.
    private static func exit<Root: ParsableCommand>(_ root: Root.Type, error: any Error, arguments: [String]) -> Never {
        let code = root.exitCode(for: error)
        if code == .success { root.exit(withError: error) }
        // A mistyped command or option first: the parser's own complaint may be about what followed from it.
        // (The parser's own message stands when it names the same word and there is no nearer name to offer.)
        if let found = CommandAdvice.advice(for: root, arguments: arguments),
            found.suggestion != nil || !root.message(for: error).contains(found.subject)
        {
            let advice = found.message
            // The parser's layout (its usage lines kept), with the advice as the error line.
            var lines = root.fullMessage(for: error).components(separatedBy: "\n")
            if lines.first?.hasPrefix("Error: ") == true {
                lines[0] = "Error: " + advice
            } else {
                lines = ["Error: " + advice]
            }
            Diagnostics.print(lines.joined(separator: "\n"))
            if JSONMode.isRequested(arguments) { ErrorReporting.printJSON(code: ExitStatus.usage, message: advice) }
            finish(ExitStatus.usage.rawValue)
        }
        let text = root.fullMessage(for: error)
        if !text.isEmpty { Diagnostics.print(text) }
        if JSONMode.isRequested(arguments) {
            ErrorReporting.printJSON(code: ExitStatus.usage, message: root.message(for: error))
        }
        Foundation.exit(ExitStatus.usage.rawValue)
    }
}

/// Whether the command line asks for `--json` (before a `--` terminator), so errors are reported as JSON too.
public enum JSONMode {
    /// Whether `arguments` hold `--json` before any `--`.
    public static func isRequested(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }
}
