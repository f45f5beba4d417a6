import Watcher

/// Why a PSBT flow (send, bump, finalize, combine, broadcast) refuses its input.
///
/// The message names what is wrong and what to do. Every case is invalid input (exit 2 on the command line).
public enum PSBTFlowError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An address that does not parse.
    case invalidAddress(String, reason: String)
    /// `--recovery` for a wallet without a miniscript policy.
    case noRecoveryPath
    /// A PSBT with no signature at all.
    case notSigned
    /// Inputs the finalizer cannot complete, each with its reason.
    case cannotFinalize([String])
    /// PSBTs (or multisig: texts) of different transactions.
    case differentTransactions
    /// A Chance multisig: text that cannot be combined or finished.
    case chance(String)

    public var description: String {
        switch self {
        case .invalidAddress(let text, let reason): "invalid address '\(text)': \(reason)"
        case .noRecoveryPath:
            "--recovery: this wallet has no miniscript policy (wsh(MINISCRIPT) or tr() miniscript leaves)"
        case .notSigned: "this PSBT is not signed yet: sign it with airlock-signer first"
        case .cannotFinalize(let problems): "the PSBT cannot be finalized: " + problems.joined(separator: "; ")
        case .differentTransactions: "the PSBTs are for different transactions"
        case .chance(let reason): reason
        }
    }
}
