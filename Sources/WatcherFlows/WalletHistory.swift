import Bitcoin
import BitcoinCrypto
import Foundation
import Watcher

/// `history`: the wallet's transactions, newest first, with their confirmations at the last sync's tip and their
/// BIP329 labels.
public enum WalletHistory {
    /// One transaction.
    public struct Entry: Encodable, Sendable, Equatable {
        public var txid: Txid
        public var height: Int?
        public var blockHash: String?
        public var verified: Bool
        /// What came in to the wallet's scripts.
        public var received: Amount
        /// What the wallet's coins spent by it were worth.
        public var sent: Amount
        /// The fee, when every input is known.
        public var fee: Amount?
        /// The transaction's label (untrusted text: shown through `DisplayText`).
        public var label: String?
        /// Blocks on top of and including its own (0 while unconfirmed), at the last sync's tip.
        public var confirmations: Int
        /// When this watcher first saw it (Unix time).
        public var firstSeen: Int

        /// What it did to the balance, in sats: received minus sent.
        public var net: Int64 { Int64(received.sats) - Int64(sent.sats) }

        enum CodingKeys: String, CodingKey {
            case txid, height, blockHash, verified, received, sent, net, fee, label, confirmations, firstSeen
        }

        /// Amounts in sats; `first_seen` as `2026-11-26 14:02 UTC`; absent values as null.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(txid.hexString, forKey: .txid)
            try container.encode(height, forKey: .height)
            try container.encode(blockHash, forKey: .blockHash)
            try container.encode(verified, forKey: .verified)
            try container.encode(received.sats, forKey: .received)
            try container.encode(sent.sats, forKey: .sent)
            try container.encode(net, forKey: .net)
            try container.encode(fee?.sats, forKey: .fee)
            try container.encode(label, forKey: .label)
            try container.encode(confirmations, forKey: .confirmations)
            try container.encode(WalletHistory.date(firstSeen), forKey: .firstSeen)
        }

        /// `2026-11-26 14:02 UTC  +0.00100000 BTC  3 confirmations (block 812)  TXID  "label"`.
        public var line: String {
            let state =
                height.map { "\(confirmations) confirmation\(confirmations == 1 ? "" : "s") (block \($0))" }
                ?? "unconfirmed"
            let change = (net < 0 ? "-" : "+") + (received > sent ? delta(received, sent) : delta(sent, received))
            let shownLabel = label.map { "  \"" + DisplayText.clean($0) + "\"" } ?? ""
            return "\(WalletHistory.date(firstSeen))  \(change) BTC  \(state)  \(txid)\(shownLabel)"
        }

        private func delta(_ larger: Amount, _ smaller: Amount) -> String {
            (try? larger.subtracting(smaller))?.btcString ?? "?"
        }
    }

    /// The transactions; `--json` is the array of entries.
    public struct Report: ListReport, Sendable, Equatable {
        public var entries: [Entry]

        /// One line a transaction, or the hint to sync.
        public var lines: [String] { entries.isEmpty ? ["no transactions (run sync first)"] : entries.map(\.line) }
    }

    /// The history of `wallet` as of its last sync.
    public static func report(store: Store, wallet: WalletRecord) throws -> Report {
        let id = try wallet.requireID()
        let labels = Dictionary(
            try store.labels(walletID: id).filter { $0.type == "tx" }.map { ($0.ref, $0.label ?? "") },
            uniquingKeysWith: { first, _ in first })
        let tip = try store.syncedTip(walletID: id)?.height
        return Report(
            entries: try store.history(walletID: id).map { try entry($0, labels: labels, tip: tip) })
    }

    /// The most entries one page may ask for.
    public static let maximumPageSize = 1000

    /// A page size or start that cannot be served.
    public struct BadPage: Error, FailureClassifying, CustomStringConvertible, Equatable {
        public let description: String
        public var failureKind: FailureKind { .invalidInput }
    }

    /// One page of the history, newest first.
    public struct Page: Encodable, Sendable, Equatable {
        public var entries: [Entry]
        /// How many transactions the wallet has in all.
        public var total: Int
        public var offset: Int
        public var limit: Int

        /// The page's entries as a report; `--json` with `--limit` is its array, as without.
        public var report: Report { Report(entries: entries) }

        /// One line a transaction, then which of how many they were (or the hint to sync, or that the page is past
        /// the end).
        public var lines: [String] {
            guard total > 0 else { return report.lines }
            guard !entries.isEmpty else {
                return ["no transactions from \(offset + 1) on: the wallet has \(total)"]
            }
            return report.lines + ["transactions \(offset + 1)-\(offset + entries.count) of \(total)"]
        }
    }

    /// `limit` entries of the history of `wallet` from `offset` on: the same entries as that slice of
    /// `report(store:wallet:)`, read for this page only (the 5,000-transaction wallet's page in milliseconds, not
    /// the whole history rebuilt for each page; issue 33).
    public static func page(store: Store, wallet: WalletRecord, limit: Int, offset: Int = 0) throws -> Page {
        guard (1...maximumPageSize).contains(limit) else {
            throw BadPage(description: "the page size must be between 1 and \(maximumPageSize), not \(limit)")
        }
        guard offset >= 0, offset <= Int(Int32.max) else {
            throw BadPage(description: "the page start must be 0 or more (and below 2147483648), not \(offset)")
        }
        let id = try wallet.requireID()
        let items = try store.history(walletID: id, limit: limit, offset: offset)
        let labels = Dictionary(
            try store.labels(walletID: id, type: "tx", refs: items.map(\.txid.hexString)).map {
                ($0.ref, $0.label ?? "")
            },
            uniquingKeysWith: { first, _ in first })
        let tip = try store.syncedTip(walletID: id)?.height
        return Page(
            entries: try items.map { try entry($0, labels: labels, tip: tip) },
            total: try store.transactionCount(walletID: id), offset: offset, limit: limit)
    }

    static func entry(_ item: HistoryItem, labels: [String: String], tip: Int?) throws -> Entry {
        Entry(
            txid: item.txid, height: item.height, blockHash: item.blockHash, verified: item.verified,
            received: try Amount(sats: item.received), sent: try Amount(sats: item.sent),
            fee: try item.fee.map { sats throws(AmountError) in try Amount(sats: sats) },
            label: labels[item.txid.hexString], confirmations: confirmations(height: item.height, tip: tip),
            firstSeen: item.firstSeen)
    }

    /// Blocks on top of and including `height` at `tip`: 0 while unconfirmed, or when the tip is not yet there.
    public static func confirmations(height: Int?, tip: Int?) -> Int {
        guard let height, let tip, tip >= height else { return 0 }
        return tip - height + 1
    }

    /// A Unix time as `2026-11-26 14:02 UTC`.
    public static func date(_ seconds: Int) -> String {
        // By hand from the C library's UTC calendar: a DateFormatter made for each of a page's 100 entries was
        // most of the page's time (issue 33). The formatter stays for what `gmtime_r` cannot place.
        var time = time_t(seconds)
        var parts = tm()
        if gmtime_r(&time, &parts) != nil, (-1900...(9999 - 1900)).contains(parts.tm_year) {
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let year = String(parts.tm_year + 1900)
            return String(repeating: "0", count: 4 - year.count) + year + "-" + two(parts.tm_mon + 1) + "-"
                + two(parts.tm_mday) + " " + two(parts.tm_hour) + ":" + two(parts.tm_min) + " UTC"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
