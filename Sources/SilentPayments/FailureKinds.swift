import BitcoinCrypto

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension SilentPaymentError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .invalidAddress, .wrongNetwork, .invalidPSBT, .incomplete, .derivationFailed, .tooManyOutputs:
            .invalidInput
        case .forbiddenInput, .forbiddenSighash, .badProof, .scriptMismatch: .refused
        }
    }
}
