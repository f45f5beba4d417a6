import Bitcoin
import CLISupport
import Ethereum
import Signer

// The exit status of each library error (docs/architecture.md section 2), mapped in one place for ErrorReporting.

extension VaultError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
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

extension MultisigError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .notACosigner, .cosignerKeyMismatch, .duplicateKey, .foreignInternalKey: .refused
        default: .invalidInput
        }
    }
}

extension KeystoreError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .wrongPassword: .authentication
        default: .invalidInput
        }
    }
}

extension AirGapError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .refused }
}

extension AuditError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .io: .io
        case .malformedLine: .invalidInput
        case .brokenChain, .truncated: .authentication
        }
    }
}

extension AccountError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .noSingleKeyAddress: .usage
        case .derivation: .invalidInput
        }
    }
}

extension SigningSessionError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
}

extension MessageSigningError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .formatNotPossible: .usage
        case .addressNotFound: .refused
        case .wrongNetwork, .messageSize, .signing: .invalidInput
        }
    }
}

extension BSMSError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .invalidToken: .usage
        case .macMismatch: .authentication
        default: .invalidInput
        }
    }
}

extension EthereumRequestError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
}

extension EthereumSignRefusal: ExitStatusProviding {
    public var exitStatus: ExitStatus { .refused }
}

extension SLIP39ShareError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
}

extension KeyImportError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .hexNeedsChain: .usage
        default: .invalidInput
        }
    }
}

extension KeyExportError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .secretNotRequested: .refused
        case .noImportedKey: .invalidInput
        case .invalidPath: .usage
        }
    }
}

extension PSBTSignError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .signedAnswer: .invalidInput
        case .notSigned: .refused
        }
    }
}

extension SLIP39SplitError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .usage }
}

extension ChanceSignError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .invalid: .invalidInput
        case .notSigned: .refused
        }
    }
}

extension BackupCheckError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .refused }
}
