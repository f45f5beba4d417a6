import Bitcoin
import Codecs
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

    /// Reads one JSON Lines record: `type` and `ref` strings; `label`, `origin` (strings) and `spendable` (a Boolean)
    /// absent or `null`; other members ignored, as BIP329 allows.
    ///
    /// - Throws: `LabelError.invalid` (the line's number, from 1) when it is not such an object.
    public init(jsonLine line: String, number: Int) throws(LabelError) {
        let invalid = LabelError.invalid(line: number, reason: "not a JSON object with type and ref")
        guard let o = try? JSONValue(json: line), let type = o["type"]?.string, let ref = o["ref"]?.string else {
            throw invalid
        }
        func text(_ key: String) throws(LabelError) -> String? {
            guard let value = o[key], !value.isNull else { return nil }
            guard let text = value.string else { throw invalid }
            return text
        }
        var spendable: Bool?
        if let value = o["spendable"], !value.isNull {
            guard let flag = value.bool else { throw invalid }
            spendable = flag
        }
        self.init(type: type, ref: ref, label: try text("label"), origin: try text("origin"), spendable: spendable)
    }

    /// The record as one JSON line (no newline): its members sorted, the absent ones left out.
    public var jsonLine: String {
        var members: [(String, JSONValue)] = [("ref", .string(ref)), ("type", .string(type))]
        if let label { members.append(("label", .string(label))) }
        if let origin { members.append(("origin", .string(origin))) }
        if let spendable { members.append(("spendable", .bool(spendable))) }
        return String(decoding: JSONValue.object(members).sortingMembers().serialized(), as: UTF8.self)
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
            let label = try Label(jsonLine: trimmed, number: number + 1)
            try label.validate(line: number + 1)
            labels.append(label)
        }
        return labels
    }

    /// One JSON object per line, sorted by type and ref.
    public static func serialize(_ labels: [Label]) -> String {
        labels.sorted { ($0.type, $0.ref) < ($1.type, $1.ref) }.map { $0.jsonLine + "\n" }.joined()
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
