import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Foundation

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

/// Runs a command body and maps every error to a message on stderr and an exit code, in one place (docs/architecture.md rule R9).
///
/// Under `--json` (on the command line) the error is also printed on stdout as
/// `{"error": {"code": N, "message": "…"}}`, so a script reading stdout always gets one JSON document.
public enum ErrorReporting {
    /// The error object of `--json` output.
    public struct ErrorOutput: Encodable, Sendable {
        /// The code and message.
        public struct Body: Encodable, Sendable {
            /// The exit code.
            public let code: Int32
            /// What went wrong.
            public let message: String
        }
        /// The error.
        public let error: Body
    }

    /// Runs `body`; on error prints `error: <message>` to stderr (and the JSON error object under `--json`) and
    /// throws the matching `ExitCode`.
    ///
    /// ArgumentParser's own errors (`ValidationError`, `CleanExit`, `ExitCode`) pass through to `CommandMain`.
    public static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as CleanExit {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            throw report(error, json: JSONMode.isRequested()).exitCode
        }
    }

    /// Prints `error` on stderr (and as the JSON error object on stdout when `json`) and returns its exit status.
    @discardableResult
    public static func report(_ error: any Error, json: Bool) -> ExitStatus {
        let status: ExitStatus
        let rawMessage: String
        switch error {
        case let error as CLIError:
            (status, rawMessage) = (error.status, error.message)
        case let error as any FailureClassifying:
            (status, rawMessage) = (ExitStatus(error.failureKind), describe(error))
        default:
            (status, rawMessage) = (.invalidInput, describe(error))
        }
        // A message may quote input (a name, a field): internals turned into words, hidden characters escaped.
        let message = DisplayText.clean(PlainMessage.clean(rawMessage))
        Diagnostics.print("error: \(message)")
        if json { printJSON(code: status, message: message) }
        return status
    }

    /// Prints `{"error": {"code": N, "message": "…"}}` on stdout.
    public static func printJSON(code: ExitStatus, message: String) {
        let output = ErrorOutput(error: .init(code: code.rawValue, message: message))
        do { StandardOutput.writeKeepingStatus(try JSONOutput.encode(output) + Data("\n".utf8)) } catch {
            Diagnostics.print("error: cannot encode the error as JSON: \(error)")
        }
    }

    /// A readable one-line description of `error`: its own description, else the case name with its context.
    public static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return PlainMessage.clean(text)
    }
}
