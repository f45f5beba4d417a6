/// Errors from deriving account keys and addresses.
public enum AccountError: Error, Equatable, Sendable {
    /// The script kind has no single-key address (the BIP48 cosigner key); its name.
    case noSingleKeyAddress(String)
    /// Derivation failed (index ≥ 2^31, …); the message.
    case derivation(String)
}

extension AccountError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noSingleKeyAddress(let script):
            "--script \(script) is a multisig cosigner key and has no address of its own; register the wallet"
        case .derivation(let message): "cannot derive: \(message)"
        }
    }
}
