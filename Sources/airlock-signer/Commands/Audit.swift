import ArgumentParser
import Bitcoin
import CLISupport
import Signer

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
        struct VerifyReport: Encodable {
            let path: String
            let entries: Int
            let keyed: Int
            let legacy: Int
            let anchored: Bool
            let intact: Bool
            let notes: [String]
        }

        /// The lines of an Ethereum entry: kind, transaction hash, chain and signer, then what it pays or calls.
        static func text(_ entry: AuditEntry, _ record: EthereumAuditRecord) -> String {
            var line = "#\(entry.sequence) \(entry.time) eth \(record.kind.rawValue) \(entry.summary.txid)"
            if let chainID = record.chainID { line += " chain \(chainID)" }
            line += " from \(record.from)"
            if let fee = record.feeWei { line += " fee \(fee) wei" }
            if !entry.summary.allowFlags.isEmpty {
                line += " overrides " + entry.summary.allowFlags.joined(separator: " ")
            }
            if record.kind == .transaction {
                line += "\n    \(record.valueWei ?? "0") wei -> \(record.to ?? "(contract creation)")"
            }
            if let call = record.call { line += "\n    \(call)" }
            // The call and addresses came from a request (and the journal is a file): shown escaped.
            return DisplayText.show(line, multiline: true).text
        }

        func run() async throws {
            try await ErrorReporting.run {
                let log = AuditLog(vaultPath: options.vaultPath)
                if verify {
                    let unlocked = try options.unlock()
                    let found = try unlocked.verifyAudit()
                    var notes: [String] = []
                    if !found.anchored {
                        notes.append(
                            "the vault does not record the log's head yet (written by an older build): a cut tail "
                                + "is detected only after the next signature")
                    }
                    if found.legacy > 0 {
                        notes.append(
                            "\(found.legacy) entr\(found.legacy == 1 ? "y" : "ies") of the older unkeyed format"
                                + (found.keyed > 0 ? " (protected by the keyed entries after them)" : ""))
                    }
                    if found.beyondAnchor > 0 {
                        notes.append(
                            "\(found.beyondAnchor) authentic entr\(found.beyondAnchor == 1 ? "y" : "ies") after the "
                                + "head the vault records (an interrupted signature; the next one anchors it)")
                    }
                    if options.json {
                        try JSONOutput.print(
                            VerifyReport(
                                path: log.path, entries: found.entries, keyed: found.keyed, legacy: found.legacy,
                                anchored: found.anchored, intact: true, notes: notes))
                    } else {
                        let count = found.entries
                        print("\(log.path): \(count) entr\(count == 1 ? "y" : "ies"), chain intact and authentic")
                        for note in notes { Diagnostics.print("note: \(note)") }
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
                    if let ethereum = entry.ethereum {
                        print(Self.text(entry, ethereum))
                        continue
                    }
                    var line = "#\(entry.sequence) \(entry.time) txid \(entry.summary.txid)"
                    if let fee = entry.summary.fee { line += " fee \(fee.sats) sat" }
                    if !entry.summary.signedInputs.isEmpty {
                        line += " inputs " + entry.summary.signedInputs.map { "#\($0)" }.joined(separator: ",")
                    }
                    if !entry.summary.allowFlags.isEmpty {
                        line += " overrides " + entry.summary.allowFlags.joined(separator: " ")
                    }
                    print(line)
                    for destination in entry.summary.destinations {
                        print("    \(destination.amount.sats) sat -> \(destination.address)")
                    }
                }
            }
        }
    }
}
