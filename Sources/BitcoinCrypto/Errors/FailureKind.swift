/// What kind of failure an error is, the same for every front end: the command line maps each kind to an exit code of
/// the CLI contract (CLISupport's `ExitStatus`), a web front end to an HTTP status.
///
/// Each library declares the kind of its own errors (one `FailureKinds.swift` per module), so the mapping from a
/// library error to what the user sees is decided once, in the library, and not in each executable.
public enum FailureKind: Sendable, Equatable, CaseIterable {
    /// The request was asked for wrongly (a missing option, an ambiguous choice, a step that needs another first).
    case usage
    /// The data given is unparseable, inconsistent or unsupported.
    case invalidInput
    /// A wrong password, or authentication that failed (a MAC, a tampered file).
    case authentication
    /// Refused by policy or by the user.
    case refused
    /// The node or the network failed.
    case network
    /// Reading or writing a file or database failed.
    case io
}

/// An error that knows its `FailureKind`.
public protocol FailureClassifying: Error {
    /// The kind of this failure.
    var failureKind: FailureKind { get }
}
