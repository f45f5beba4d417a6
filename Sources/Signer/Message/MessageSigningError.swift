/// Why a message could not be signed.
public enum MessageSigningError: Error, Equatable, Sendable {
    /// The format cannot carry a signature for this address kind (simple for pkh/sh-wpkh, legacy for tr,
    /// any for the multisig cosigner key).
    case formatNotPossible(format: String, script: String)
    /// The address is not one of this vault's within the searched range.
    case addressNotFound(address: String, searched: String)
    /// The address given is for another network than the vault's.
    case wrongNetwork(address: String, vault: String)
    /// The message is empty or longer than the limit.
    case messageSize(Int)
    /// Deriving the key or signing failed.
    case signing(String)
}

extension MessageSigningError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .formatNotPossible(let format, let script):
            "--format \(format) cannot sign for a \(script) address"
                + (format == "bip322-simple" ? " (the simple form is for wpkh and tr; use bip322-full)" : "")
        case .addressNotFound(let address, let searched):
            "\(address) is not an address of this vault (searched \(searched))"
        case .wrongNetwork(let address, let vault): "\(address) is not an address of the vault's network (\(vault))"
        case .messageSize(let size):
            "the message has \(size) bytes; it must have 1 to \(MessageSigner.maximumMessageSize)"
        case .signing(let reason): "cannot sign: \(reason)"
        }
    }
}
