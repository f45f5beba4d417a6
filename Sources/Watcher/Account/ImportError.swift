import Bitcoin
import Descriptors

/// Errors from reading an account to import.
public enum ImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing to import.
    case empty
    /// The text is no descriptor, extended key or wallet export that the watcher reads.
    case unrecognized(String)
    /// A descriptor did not parse: the text and the parser's error.
    case descriptor(String, DescriptorError)
    /// The descriptor holds private keys; the watcher keeps none.
    case privateKeys
    /// A multipath descriptor with other than two branches.
    case branchCount(Int)
    /// The descriptors name different networks, or not the one asked for.
    case networkMismatch(String)
    /// The JSON export lacks what is needed: which part.
    case export(String)
    /// An extended key whose version does not say a single-key script (e.g. `Zpub`): the prefix.
    case unsupportedKeyVersion(String)

    public var description: String {
        switch self {
        case .empty: "nothing to import: the input is empty"
        case .unrecognized(let start):
            "not a descriptor, extended key or wallet export: '\(start)' (see airlock-watcher import --help)"
        case .descriptor(let text, let error): "invalid descriptor '\(text.prefix(60))…': \(error)"
        case .privateKeys: "the descriptor holds private keys; the watcher imports public keys only"
        case .branchCount(let n): "a multipath descriptor needs exactly two branches <0;1>, not \(n)"
        case .networkMismatch(let why): "network mismatch: \(why)"
        case .export(let what): "the wallet export has no usable \(what)"
        case .unsupportedKeyVersion(let prefix):
            "a \(prefix) key names a multisig script; import the multisig descriptor (wsh(sortedmulti(...))) instead"
        }
    }
}
