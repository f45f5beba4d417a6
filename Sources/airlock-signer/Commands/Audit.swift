import ArgumentParser
import CLISupport
import Signer

extension AirlockSigner {
    /// `airlock-signer audit [--verify]`.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the hash-chained log of everything signed; --verify checks the chain.",
            discussion: """
                The log is VAULT.audit, one JSON object per line. --verify exits 0 when every entry is intact and \
                chained, 2 naming the first line that was edited, removed or reordered.

                Examples:
                  airlock-signer audit
                  airlock-signer audit --verify --json
                """)

        @OptionGroup var options: VaultOptions
        @Flag(help: "Check every entry and the chain.") var verify = false

        func run() async throws {
            try await ErrorReporting.run {
                let log = AuditLog(vaultPath: options.vaultPath)
                if verify {
                    let count = try log.verify()
                    if options.json {
                        try JSONOutput.print(AuditVerifyJSON(path: log.path, entries: count, intact: true))
                    } else {
                        print("\(log.path): \(count) entr\(count == 1 ? "y" : "ies"), chain intact")
                    }
                    return
                }
                let entries = try log.entries()
                if options.json {
                    try JSONOutput.print(entries.map(AuditEntryJSON.init))
                    return
                }
                if entries.isEmpty { print("Nothing signed yet (\(log.path)).") }
                for entry in entries {
                    var line = "#\(entry.sequence) \(entry.time) txid \(entry.summary.txid)"
                    if let fee = entry.summary.fee { line += " fee \(fee.sats) sat" }
                    print(line)
                    for destination in entry.summary.destinations {
                        print("    \(destination.amount.sats) sat -> \(destination.address)")
                    }
                }
            }
        }
    }
}
