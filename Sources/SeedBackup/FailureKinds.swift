import BitcoinCrypto

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension SLIP39ShareError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension BackupCheckError: FailureClassifying {
    public var failureKind: FailureKind { .refused }
}
