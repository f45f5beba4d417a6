import ArgumentParser
import Bitcoin
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer audit [--verify]`.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the keyed, hash-chained log of everything signed; --verify checks it (needs the password).",
            discussion: """
                The log is VAULT.audit, one JSON object per line; each entry's hash is an HMAC under a key derived \
                from the seed, and the vault header records the log's head (entry count and last hash). --verify \
                unlocks the vault and exits 0 when every entry is intact, chained, authentic and the head matches; \
                3 when an entry was edited, removed, reordered or recomputed without the key, or the tail was cut \
                (naming the first bad line); 2 when a line is not an entry at all. Entries of older builds (unkeyed) \
                still verify as a plain hash chain, and a vault that never recorded a head says so.

                Examples:
                  airlock-signer audit
                  airlock-signer audit --verify --json --password-file pw.txt
                """)

        @OptionGroup var options: VaultOptions
        @Flag(help: "Check every entry, the chain, the keyed hashes and the head the vault records.")
        var verify = false

        /// The `--verify --json` answer.
        func run() async throws {
            try await ErrorReporting.run {
                let log = AuditLog(vaultPath: options.vaultPath)
                if verify {
                    let found = try options.unlock().verifyAudit()
                    if options.json { return try JSONOutput.print(found.report(path: log.path)) }
                    print(found.summary(path: log.path))
                    for note in found.notes { Diagnostics.print("note: \(note)") }
                    return
                }
                let entries = try log.entries()
                if options.json { return try JSONOutput.print(entries.map(AuditEntryReport.init)) }
                if entries.isEmpty { print("Nothing signed yet (\(log.path)).") }
                for entry in entries { print(entry.text) }
            }
        }
    }
}
