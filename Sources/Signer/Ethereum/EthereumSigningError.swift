public import Ethereum

/// Errors from reviewing or signing an Ethereum request (docs/architecture.md section 10).
public enum EthereumSigningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The sign-data is not what its data type says (why).
    case invalidSignData(String)
    /// The key at the request's path cannot be derived (why).
    case keyDerivation(String)
    /// The review refused the request (the reasons).
    case refused([EthereumRefusal])

    public var description: String {
        switch self {
        case .invalidSignData(let why): why
        case .keyDerivation(let why): "no key for the request: \(why)"
        case .refused(let reasons): "refused: " + reasons.map(\.description).joined(separator: "; ")
        }
    }
}

/// A reason the signer will not sign an Ethereum request.
public enum EthereumRefusal: Sendable, Hashable, CustomStringConvertible {
    /// A transaction without a chain id (legacy without EIP-155) can be replayed on every chain.
    case noChainID
    /// The worst-case fee (gas limit × max fee) is above the maximum.
    case feeTooHigh(fee: Wei, maximum: Wei)
    /// The request names an address that is not the key at its path.
    case addressMismatch(requested: EthereumAddress, derived: EthereumAddress)
    /// The request's chain id and the data's own chain id differ.
    case chainIDContradiction(request: UInt64, data: UInt64)
    /// What is signed cannot be shown (what), and `--allow-blind` was not given.
    case blind(String)
    /// The request is for another seed (its fingerprint, this vault's).
    case otherSeed(request: String, vault: String)
    /// The request names no derivation path, and no imported key has the address it names (if any).
    case noKey(address: EthereumAddress?)

    public var description: String {
        switch self {
        case .noChainID: "the transaction has no chain id (legacy without EIP-155): it could be replayed on any chain"
        case .feeTooHigh(let fee, let maximum):
            "the worst-case fee \(fee.etherString) ETH is above --max-fee-eth \(maximum.etherString)"
        case .addressMismatch(let requested, let derived):
            "the request names \(requested) but the key at its path is \(derived)"
        case .chainIDContradiction(let request, let data):
            "the request says chain \(request) but the data says chain \(data)"
        case .otherSeed(let request, let vault): "the request is for seed \(request), this vault is \(vault)"
        case .noKey(let address):
            "the request names no derivation path, and no imported key has "
                + (address.map { "its address \($0.checksummed)" } ?? "an address it names")
        case .blind(let what):
            "blind signing: \(what); the signer cannot show what it authorizes (sign it only if you know, from "
                + "elsewhere, what it is: --allow-blind)"
        }
    }
}
