import ArgumentParser
import BitcoinCrypto

/// The exit codes of the CLI contract (docs/architecture.md section 2), mapped in one place.
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case ok = 0
    /// Bad command line.
    case usage = 1
    /// Unparseable, inconsistent or unsupported data.
    case invalidInput = 2
    /// Wrong password or failed authentication.
    case authentication = 3
    /// Refused by signing policy or by the user.
    case refused = 4
    /// Node or network error.
    case network = 5
    /// Reading or writing a file failed.
    case io = 6

    /// The exit status of a library failure of `kind`: the one place where the kinds the libraries declare
    /// (`FailureClassifying`) become exit codes.
    public init(_ kind: FailureKind) {
        switch kind {
        case .usage: self = .usage
        case .invalidInput: self = .invalidInput
        case .authentication: self = .authentication
        case .refused: self = .refused
        case .network: self = .network
        case .io: self = .io
        }
    }

    /// The ArgumentParser exit code for this status.
    public var exitCode: ExitCode { ExitCode(rawValue) }
}
