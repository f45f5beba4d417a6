import Bitcoin
public import Foundation
import Signer

extension AuditVerification {
    /// What the user should know about a journal that verified: not yet anchored in the vault, entries of the older
    /// unkeyed format, authentic entries after the recorded head.
    public var notes: [String] {
        var notes: [String] = []
        if !anchored {
            notes.append(
                "the vault does not record the log's head yet (written by an older build): a cut tail "
                    + "is detected only after the next signature")
        }
        if legacy > 0 {
            notes.append(
                "\(legacy) entr\(legacy == 1 ? "y" : "ies") of the older unkeyed format"
                    + (keyed > 0 ? " (protected by the keyed entries after them)" : ""))
        }
        if beyondAnchor > 0 {
            notes.append(
                "\(beyondAnchor) authentic entr\(beyondAnchor == 1 ? "y" : "ies") after the "
                    + "head the vault records (an interrupted signature; the next one anchors it)")
        }
        return notes
    }

    /// The summary line: "PATH: N entries, chain intact and authentic".
    public func summary(path: String) -> String {
        "\(path): \(entries) entr\(entries == 1 ? "y" : "ies"), chain intact and authentic"
    }

    /// `audit --verify --json`.
    public struct Report: Encodable, Sendable {
        let path: String
        let entries: Int
        let keyed: Int
        let legacy: Int
        let anchored: Bool
        let intact: Bool
        let notes: [String]
    }

    /// The `--json` report of the journal at `path`.
    public func report(path: String) -> Report {
        Report(
            path: path, entries: entries, keyed: keyed, legacy: legacy, anchored: anchored, intact: true, notes: notes)
    }
}

extension AuditEntry {
    /// The entry as `audit` lists it: one line (and a line for each destination, or the Ethereum call).
    public var text: String {
        if let ethereum { return Self.text(self, ethereum) }
        var line = "#\(sequence) \(time) txid \(summary.txid)"
        if let fee = summary.fee { line += " fee \(fee.sats) sat" }
        if !summary.signedInputs.isEmpty {
            line += " inputs " + summary.signedInputs.map { "#\($0)" }.joined(separator: ",")
        }
        if !summary.allowFlags.isEmpty { line += " overrides " + summary.allowFlags.joined(separator: " ") }
        return ([line] + summary.destinations.map { "    \($0.amount.sats) sat -> \($0.address)" })
            .joined(separator: "\n")
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
}

/// One line of `audit --json`: the journal entry as stored (change, fee and note only when present).
public struct AuditEntryReport: Encodable, Sendable {
    /// A payee.
    public struct Destination: Encodable, Sendable {
        let address: String
        let amount: UInt64
    }
    let seq: Int
    let time: String
    /// Absent for an Ethereum entry, which has `data_sha256`.
    let psbtSha256: String?
    let txid: String
    let destinations: [Destination]
    let prev: String
    let hash: String
    let change: UInt64?
    let fee: UInt64?
    let note: String?
    /// `"eth"` for an Ethereum entry; then the fields below (docs/formats.md).
    let chain: String?
    let kind: String?
    let dataSha256: String?
    let chainId: UInt64?
    let from: String?
    let to: String?
    let valueWei: String?
    let feeWei: String?
    let call: String?

    /// The report of `entry`.
    public init(_ entry: AuditEntry) {
        seq = entry.sequence
        time = entry.time
        let ethereum = entry.ethereum
        psbtSha256 = ethereum == nil ? entry.psbtDigest.hexString : nil
        dataSha256 = ethereum == nil ? nil : entry.psbtDigest.hexString
        chain = ethereum == nil ? nil : "eth"
        kind = ethereum?.kind.rawValue
        chainId = ethereum?.chainID
        from = ethereum?.from
        to = ethereum?.to
        valueWei = ethereum?.valueWei
        feeWei = ethereum?.feeWei
        call = ethereum?.call
        txid = entry.summary.txid
        destinations = entry.summary.destinations.map { Destination(address: $0.address, amount: $0.amount.sats) }
        prev = entry.previousHash.hexString
        hash = entry.hash.hexString
        change = entry.summary.change?.sats
        fee = entry.summary.fee?.sats
        note = entry.summary.note
    }
}
