import BitcoinCrypto

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension VaultError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .notFound, .io, .keyDerivationFailed: .io
        case .alreadyExists, .duplicateKey, .tooManyKeys, .duplicateToken: .refused
        case .unknownToken: .invalidInput
        case .corrupt, .unsupportedVersion, .invalidKDFParameters, .duplicateWallet: .invalidInput
        case .wrongPassword, .tampered, .wrongPassphrase: .authentication
        case .passphraseRequired: .usage
        }
    }
}

extension MultisigError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .notACosigner, .cosignerKeyMismatch, .duplicateKey, .foreignInternalKey: .refused
        default: .invalidInput
        }
    }
}

extension AuditError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .io: .io
        case .malformedLine: .invalidInput
        case .brokenChain, .truncated: .authentication
        }
    }
}

extension AccountError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .noSingleKeyAddress: .usage
        case .derivation: .invalidInput
        }
    }
}

extension SigningSessionError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension MessageSigningError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .formatNotPossible: .usage
        case .addressNotFound: .refused
        case .wrongNetwork, .messageSize, .signing: .invalidInput
        }
    }
}

extension KeyImportError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .hexNeedsChain: .usage
        default: .invalidInput
        }
    }
}

extension KeyExportError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .secretNotRequested: .refused
        case .noImportedKey: .invalidInput
        case .invalidPath: .usage
        }
    }
}

extension PSBTSignError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .signedAnswer: .invalidInput
        case .notSigned: .refused
        }
    }
}

extension SLIP39SplitError: FailureClassifying {
    public var failureKind: FailureKind { .usage }
}

extension ChanceSignError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .invalid: .invalidInput
        case .notSigned: .refused
        }
    }
}
