import BitcoinCrypto
import Signer

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension EthereumRequestError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension EthereumSignRefusal: FailureClassifying {
    public var failureKind: FailureKind { .refused }
}
