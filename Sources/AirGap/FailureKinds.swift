import BitcoinCrypto

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension AirGapError: FailureClassifying {
    public var failureKind: FailureKind { .refused }
}
