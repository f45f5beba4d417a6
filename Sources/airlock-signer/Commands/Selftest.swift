import ArgumentParser
import CLISupport
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer selftest`: proves the air-gap guard.
    struct Selftest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prove the air-gap guard: with the seccomp filter installed, socket() must fail with EPERM.",
            discussion: """
                Every airlock-signer run installs the filter before it reads any input. This command then calls \
                socket(AF_INET, SOCK_STREAM) and exits 0 only if it failed with EPERM; it also lists the network \
                interfaces that are up.

                Examples:
                  airlock-signer selftest
                  airlock-signer selftest --json
                """)

        @Flag(help: "Machine-readable JSON on stdout.") var json = false

        func run() async throws {
            try await ErrorReporting.run {
                let mode = SeccompFilter.currentMode()
                let failure = SeccompFilter.probeSocket()
                let blocked = failure == EPERM
                let interfaces = (try? NetworkInterfaces.activeNonLoopback()) ?? []
                let result =
                    failure.map { "failed with \($0 == EPERM ? "EPERM" : String(cString: strerror($0)))" }
                    ?? "succeeded"
                if json {
                    try JSONOutput.print(
                        SelftestJSON(
                            seccompMode: mode.map { Int($0) }, socket: result, socketBlocked: blocked,
                            interfacesUp: interfaces))
                } else {
                    print("seccomp mode: \(mode.map(String.init) ?? "unknown") (2 = filter)")
                    print("socket(): \(result)")
                    print("network interfaces up: \(interfaces.isEmpty ? "none" : interfaces.joined(separator: ", "))")
                }
                guard blocked else { throw CLIError(.refused, "the air-gap filter is not working: socket() \(result)") }
                if !json { print("OK: the air-gap filter blocks socket().") }
            }
        }
    }
}
