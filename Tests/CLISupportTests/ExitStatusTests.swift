import Bitcoin
import BitcoinCrypto
import Descriptors
import Ethereum
import Testing

@testable import CLISupport

/// The one mapping from a library's `FailureKind` to an exit code of the CLI contract (docs/architecture.md section
/// 2: 1 usage, 2 invalid input, 3 wrong password, 4 refused, 5 node/network, 6 I/O).
@Suite("Exit status of each failure kind")
struct ExitStatusTests {
    @Test(
        "each kind has its exit code",
        arguments: [
            (FailureKind.usage, Int32(1)), (.invalidInput, 2), (.authentication, 3), (.refused, 4), (.network, 5),
            (.io, 6),
        ])
    func code(kind: FailureKind, code: Int32) {
        #expect(ExitStatus(kind).rawValue == code)
    }

    @Test("no two kinds share an exit code, and none exits 0")
    func distinct() {
        let codes = FailureKind.allCases.map { ExitStatus($0).rawValue }
        #expect(Set(codes).count == FailureKind.allCases.count)
        #expect(!codes.contains(ExitStatus.ok.rawValue))
    }

    @Test("a library error is reported with the exit code of the kind it declares")
    func libraryError() {
        #expect(ErrorReporting.report(BSMSError.macMismatch, json: false) == .authentication)
        #expect(ErrorReporting.report(BSMSError.invalidToken("zz"), json: false) == .usage)
        #expect(ErrorReporting.report(KeystoreError.wrongPassword, json: false) == .authentication)
        // Control: an error of no declared kind is invalid input.
        struct Other: Error {}
        #expect(ErrorReporting.report(Other(), json: false) == .invalidInput)
    }
}
