import ArgumentParser
import Foundation

/// The `main` of both executables: parses, runs, and maps every way out to an exit code of the CLI contract
/// (DESIGN.md section 2) in one place.
///
/// ArgumentParser exits 64 (`EX_USAGE`) for parse and validation errors; the contract says 1. `--help`,
/// `--version` and the completion scripts still print on stdout and exit 0. Under `--json` a usage error is also
/// printed on stdout as the error object of `ErrorReporting`.
public enum CommandMain {
    /// Parses `arguments` as `Root`, runs the chosen command and exits.
    public static func run<Root: AsyncParsableCommand>(_ root: Root.Type, arguments: [String]) async -> Never {
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
            Foundation.exit(error.rawValue)
        } catch let error where error is CLIError || error is any ExitStatusProviding {
            Foundation.exit(ErrorReporting.report(error, json: JSONMode.isRequested(arguments)).rawValue)
        } catch {
            exit(root, error: error, arguments: arguments)
        }
        Foundation.exit(ExitStatus.ok.rawValue)
    }

    /// Leaves after an ArgumentParser error: help and version on stdout with 0, usage errors on stderr with 1.
    private static func exit<Root: ParsableCommand>(_ root: Root.Type, error: any Error, arguments: [String]) -> Never {
        let code = root.exitCode(for: error)
        if code == .success { root.exit(withError: error) }
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
