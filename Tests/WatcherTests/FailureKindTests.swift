import ChainCore
import Testing

@testable import Watcher

/// The kind of each watcher failure, which the command line turns into its exit code and a web front end into an
/// HTTP status: a node that is down is a network failure, a damaged database an I/O failure, a missing choice a usage
/// error, and an error that wraps another takes the kind of the one it wraps.
@Suite("Watcher failure kinds")
struct FailureKindTests {
    @Test("store errors")
    func store() {
        #expect(StoreError.ambiguousWallet(["a", "b"]).failureKind == .usage)
        #expect(StoreError.noWallet.failureKind == .invalidInput)
        #expect(StoreError.corrupt("x").failureKind == .io)
        #expect(StoreError.sqlite(code: 1, message: "x").failureKind == .io)
    }

    @Test("chain errors: a bad URL is input, an unreachable node is the network")
    func chain() {
        #expect(ChainError.invalidURL("x").failureKind == .invalidInput)
        #expect(ChainError.connectionFailed(host: "h", port: 1, reason: "r").failureKind == .network)
        #expect(ChainError.timeout(operation: "o", seconds: 1).failureKind == .network)
    }

    @Test("a wrapping error takes the kind of the error it wraps")
    func wrapped() {
        let down = ChainError.connectionClosed(host: "h", port: 1)
        #expect(SyncError.chain(down).failureKind == .network)
        #expect(SyncError.store(.corrupt("x")).failureKind == .io)
        #expect(EthereumWalletError.chain(down).failureKind == .network)
        #expect(EthereumWalletError.store(.ambiguousWallet([])).failureKind == .usage)
        #expect(LabelError.store(.sqlite(code: 5, message: "busy")).failureKind == .io)
        #expect(BackupError.store(.corrupt("x")).failureKind == .io)
        #expect(SpendError.store(.noWallet).failureKind == .invalidInput)
        // Controls: the errors' own cases.
        #expect(BackupError.wouldOverwrite(["a"]).failureKind == .usage)
        #expect(EthereumWalletError.ambiguousAccount(["a"]).failureKind == .usage)
    }
}
