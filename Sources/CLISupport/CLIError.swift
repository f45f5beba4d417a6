import ArgumentParser

/// An error the executables report with a message and an exit code of the CLI contract (docs/architecture.md section 2).
public struct CLIError: Error, CustomStringConvertible, Sendable {
    /// The exit status to leave with.
    public let status: ExitStatus
    /// A message naming what is wrong, printed on stderr.
    public let message: String

    /// An error with `status` and `message`.
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}

/// Errors of library modules that know which exit status they deserve.
public protocol ExitStatusProviding: Error {
    /// The exit status of the CLI contract for this error.
    var exitStatus: ExitStatus { get }
}

/// Runs a command body and maps every error to a message on stderr and an exit code, in one place (docs/architecture.md rule R9).
public enum ErrorReporting {
    /// Runs `body`; on error prints `error: <message>` to stderr and throws the matching `ExitCode`.
    public static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as CleanExit {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch let error as CLIError {
            Diagnostics.print("error: \(error.message)")
            throw error.status.exitCode
        } catch let error as any ExitStatusProviding {
            Diagnostics.print("error: \(describe(error))")
            throw error.exitStatus.exitCode
        } catch {
            Diagnostics.print("error: \(describe(error))")
            throw ExitStatus.invalidInput.exitCode
        }
    }

    /// A readable one-line description of `error`: its own description, else the case name with its context.
    public static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.contains(" ") || text.contains(":") ? text : "\(type(of: error)).\(text)"
    }
}
