import BitcoinCrypto
import ChainCore

// The failure kind of each of this module's errors (an exit code on the command line, an HTTP status on the web).

extension StoreError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .walletNotFound, .walletExists, .noWallet, .unknownOutput: .invalidInput
        case .ambiguousWallet: .usage
        case .sqlite, .dataDirectory, .corrupt, .newerSchema: .io
        }
    }
}

extension SyncError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .chain(let error): error.failureKind
        case .store(let error): error.failureKind
        case .derivation: .invalidInput
        }
    }
}

extension ImportError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension LabelError: FailureClassifying {
    public var failureKind: FailureKind {
        if case .store(let error) = self { return error.failureKind }
        return .invalidInput
    }
}

extension BackupError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .invalid, .unsupportedVersion: .invalidInput
        case .wouldOverwrite: .usage
        case .store(let error): error.failureKind
        }
    }
}

extension CoinSelectionError: FailureClassifying {
    public var failureKind: FailureKind { .invalidInput }
}

extension SpendError: FailureClassifying {
    public var failureKind: FailureKind {
        if case .store(let error) = self { return error.failureKind }
        return .invalidInput
    }
}

extension EthereumWalletError: FailureClassifying {
    public var failureKind: FailureKind {
        switch self {
        case .chain(let error): error.failureKind
        case .store(let error): error.failureKind
        case .invalid, .refused, .accountNotFound, .noAccount: .invalidInput
        case .ambiguousAccount, .amountWithoutUnit: .usage
        }
    }
}
