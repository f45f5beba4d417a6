import Bitcoin
import Foundation
import GRDB

/// A BIP329 label record: `{"type": "tx", "ref": "…", "label": "…"}`, with `origin` and, for outputs, `spendable`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0329.mediawiki
public struct Label: Sendable, Equatable, Codable {
    /// `tx`, `addr`, `pubkey`, `input`, `output` or `xpub`.
    public var type: String
    /// The txid, address, key, `txid:index` or xpub the label is for.
    public var ref: String
    public var label: String?
    public var origin: String?
    /// For outputs: false freezes the coin (coin control).
    public var spendable: Bool?

    public init(type: String, ref: String, label: String?, origin: String? = nil, spendable: Bool? = nil) {
        self.type = type
        self.ref = ref
        self.label = label
        self.origin = origin
        self.spendable = spendable
    }

    /// The types BIP329 defines.
    public static let types: Set<String> = ["tx", "addr", "pubkey", "input", "output", "xpub"]

    /// Checks the type and the shape of the reference.
    ///
    /// - Throws: `LabelError.invalid`.
    public func validate(line: Int) throws(LabelError) {
        guard Self.types.contains(type) else { throw .invalid(line: line, reason: "unknown type '\(type)'") }
        guard !ref.isEmpty, ref.count <= 1000 else { throw .invalid(line: line, reason: "empty or oversized ref") }
        switch type {
        case "tx":
            guard (try? Txid(hex: ref)) != nil else { throw .invalid(line: line, reason: "ref '\(ref)' is not a txid") }
        case "input", "output":
            guard (try? OutPoint(string: ref)) != nil else {
                throw .invalid(line: line, reason: "ref '\(ref)' is not txid:index")
            }
        default: break
        }
        if let label, label.count > 255 * 4 { throw .invalid(line: line, reason: "label longer than BIP329 allows") }
    }
}

/// Errors reading BIP329 labels.
public enum LabelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A line is not a valid label record: its number (from 1) and why.
    case invalid(line: Int, reason: String)
    case store(StoreError)

    public var description: String {
        switch self {
        case .invalid(let line, let reason): "labels line \(line): \(reason)"
        case .store(let error): error.description
        }
    }
}

/// BIP329 JSON Lines import and export.
public enum LabelsFile {
    /// Parses JSON Lines; blank lines are skipped.
    ///
    /// - Throws: `LabelError.invalid` naming the first bad line.
    public static func parse(_ text: String) throws(LabelError) -> [Label] {
        var labels: [Label] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            let label: Label
            do {
                label = try JSONDecoder().decode(Label.self, from: Data(trimmed.utf8))
            } catch {
                throw .invalid(line: number + 1, reason: "not a JSON object with type and ref")
            }
            try label.validate(line: number + 1)
            labels.append(label)
        }
        return labels
    }

    /// One JSON object per line, sorted by type and ref.
    public static func serialize(_ labels: [Label]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return labels.sorted { ($0.type, $0.ref) < ($1.type, $1.ref) }
            .compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined()
    }
}

extension Store {
    /// The labels of `type` on these refs (a history page's transactions), through the table's primary key.
    public func labels(walletID: Int64, type: String, refs: [String]) throws(StoreError) -> [Label] {
        try read { db in
            var found: [Label] = []
            for start in stride(from: 0, to: refs.count, by: 500) {
                let chunk = Array(refs[start..<min(start + 500, refs.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                found += try Row.fetchAll(
                    db,
                    sql: """
                        SELECT type, ref, label, origin, spendable FROM label
                        WHERE wallet_id = ? AND type = ? AND ref IN (\(marks)) ORDER BY ref
                        """,
                    arguments: StatementArguments([walletID as any DatabaseValueConvertible, type] + chunk)
                ).map { row in
                    Label(
                        type: row["type"], ref: row["ref"], label: row["label"], origin: row["origin"],
                        spendable: row["spendable"])
                }
            }
            return found
        }
    }

    /// The labels of a wallet.
    public func labels(walletID: Int64) throws(StoreError) -> [Label] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT type, ref, label, origin, spendable FROM label WHERE wallet_id = ? ORDER BY type, ref",
                arguments: [walletID]
            ).map { row in
                Label(
                    type: row["type"], ref: row["ref"], label: row["label"], origin: row["origin"],
                    spendable: row["spendable"])
            }
        }
    }

    /// Adds or replaces labels, all in one transaction.
    public func upsertLabels(_ labels: [Label], walletID: Int64) throws(StoreError) {
        try write { db in
            for label in labels {
                try db.execute(
                    sql:
                        "INSERT OR REPLACE INTO label (wallet_id, type, ref, label, origin, spendable) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [walletID, label.type, label.ref, label.label, label.origin, label.spendable])
            }
        }
    }
}
