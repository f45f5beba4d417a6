import ChainCore

/// Errors of the watcher's Ethereum accounts (docs/architecture.md section 10).
public enum EthereumWalletError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The node failed or lied.
    case chain(ChainError)
    /// The database failed.
    case store(StoreError)
    /// Unusable input (an account key, an address, an amount, a signature): why.
    case invalid(String)
    /// Refused: a signature for another request or by another key, a second broadcast, too little money: why.
    case refused(String)
    /// No Ethereum account with this name.
    case accountNotFound(name: String, known: [String])
    /// No Ethereum account yet.
    case noAccount
    /// Several accounts and none named.
    case ambiguousAccount([String])
    /// An ETH amount given as a bare number, without its unit (a usage error).
    case amountWithoutUnit(String)

    public var description: String {
        switch self {
        case .chain(let error): error.description
        case .store(let error): error.description
        case .invalid(let why): why
        case .refused(let why): "refused: \(why)"
        case .accountNotFound(let name, let known):
            "no Ethereum account named '\(name)'"
                + (known.isEmpty ? " (none yet; use eth import)" : "; accounts: \(known.joined(separator: ", "))")
        case .noAccount: "no Ethereum account yet: airlock-watcher eth import UR-OR-ADDRESS"
        case .ambiguousAccount(let names):
            "several Ethereum accounts (\(names.joined(separator: ", "))): pick one with --wallet NAME"
        case .amountWithoutUnit(let text): "--amount \(text) has no unit: write \(text)eth, \(text)gwei or \(text)wei"
        }
    }
}
