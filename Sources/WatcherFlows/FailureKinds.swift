import BitcoinCrypto
import Watcher

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension PSBTFlowError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension ConversionError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}
