import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Descriptors
import Watcher

// Each library error knows its exit status of the CLI contract (docs/architecture.md section 2); ErrorReporting maps them.

extension ChainError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .invalidURL, .wrongChain, .reverted: return .invalidInput
        default: return .network
        }
    }
}

extension StoreError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .walletNotFound, .walletExists, .noWallet, .unknownOutput: .invalidInput
        case .ambiguousWallet: .usage
        case .sqlite, .dataDirectory, .corrupt, .newerSchema: .io
        }
    }
}

extension SyncError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .chain(let error): error.exitStatus
        case .store(let error): error.exitStatus
        case .derivation: .invalidInput
        }
    }
}

extension ImportError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
}

extension LabelError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        if case .store(let error) = self { return error.exitStatus }
        return .invalidInput
    }
}

extension BackupError: ExitStatusProviding {
    public var exitStatus: ExitStatus {
        switch self {
        case .invalid, .unsupportedVersion: .invalidInput
        case .wouldOverwrite: .usage
        case .store(let error): error.exitStatus
        }
    }
}

extension CoinSelectionError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
}

extension PSBTError: ExitStatusProviding {
    public var exitStatus: ExitStatus { .invalidInput }
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
