import Bitcoin
import Foundation
import Watcher

/// `receive`: the next unused receive address (or a fresh one), its label stored as BIP329, and its BIP21 URI.
public enum WalletReceive {
    /// The address handed out.
    ///
    /// `--json` adds `qr` (the PNG written, or null) and `files`.
    public struct Report: Encodable, Sendable, Equatable {
        public var address: String
        public var index: Int
        /// `bitcoin:ADDRESS?amount=…&label=…`.
        public var uri: String
        /// The amount requested, if any.
        public var amount: Amount?
        /// The label given, if any.
        public var label: String?
        /// The PNG the URI was written to as a QR code (set by the caller that wrote it).
        public var qr: String?

        enum CodingKeys: String, CodingKey { case address, index, uri, qr }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
            try container.encode(index, forKey: .index)
            try container.encode(uri, forKey: .uri)
            try container.encode(qr, forKey: .qr)
        }

        /// The address, then the URI.
        public var lines: [String] { [address, uri] }
    }

    /// Hands out the next unused receive address of `wallet` (a fresh one beyond every address shown when `fresh`),
    /// stores `label` for it, and builds its BIP21 URI with `amount` and `label`.
    public static func address(store: Store, wallet: WalletRecord, fresh: Bool, amount: Amount?, label: String?)
        throws -> Report
    {
        let record = try store.nextUnusedAddress(wallet: wallet, keychain: .external, fresh: fresh)
        if let label {
            try store.upsertLabels(
                [Label(type: "addr", ref: record.address, label: label)], walletID: try wallet.requireID())
        }
        return Report(
            address: record.address, index: record.index,
            uri: uri(address: record.address, amount: amount, label: label),
            amount: amount, label: label)
    }

    /// The BIP21 URI: `amount` in decimal BTC without trailing zeros, `label` percent-encoded (RFC 3986 unreserved
    /// characters kept).
    public static func uri(address: String, amount: Amount?, label: String?) -> String {
        var query: [String] = []
        if let amount { query.append("amount=\(bip21Amount(amount))") }
        if let label {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            query.append("label=\(label.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")")
        }
        return "bitcoin:\(address)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// BIP21 amounts are decimal BTC without trailing zeros.
    public static func bip21Amount(_ amount: Amount) -> String {
        var text = amount.btcString
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
