import Bitcoin
import BitcoinCrypto
import Watcher

/// The read-only wallet commands (`balance`, `addresses`, `utxos`, `wallets`) and coin control (`utxos freeze`):
/// each a report with its `--json` encoding and its text.
public enum WalletQueries {
    // MARK: balance

    /// `balance`: as of the last sync.
    public struct BalanceReport: Encodable, Sendable, Equatable {
        public var wallet: String
        public var confirmed: Amount
        public var unconfirmed: Amount
        public var immature: Amount
        /// Frozen coins, counted in the amounts above.
        public var frozen: Amount
        public var total: Amount
        /// The height of the last sync, nil when never synced.
        public var height: Int?

        enum CodingKeys: String, CodingKey { case wallet, confirmed, unconfirmed, immature, frozen, total, height }

        /// Amounts in sats; `height` null when never synced.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(wallet, forKey: .wallet)
            try container.encode(confirmed.sats, forKey: .confirmed)
            try container.encode(unconfirmed.sats, forKey: .unconfirmed)
            try container.encode(immature.sats, forKey: .immature)
            try container.encode(frozen.sats, forKey: .frozen)
            try container.encode(total.sats, forKey: .total)
            try container.encode(height, forKey: .height)
        }

        /// One line an amount; frozen only when there is some.
        public var lines: [String] {
            var lines = [
                "confirmed:   \(confirmed.btcString) BTC", "unconfirmed: \(unconfirmed.btcString) BTC",
                "immature:    \(immature.btcString) BTC",
            ]
            if frozen > .zero { lines.append("frozen:      \(frozen.btcString) BTC (of the above)") }
            lines.append(
                "total:       \(total.btcString) BTC"
                    + (height.map { " (synced to height \($0))" } ?? " (never synced)"))
            return lines
        }
    }

    /// The balance of `wallet` at its last synced tip.
    public static func balance(store: Store, wallet: WalletRecord) throws -> BalanceReport {
        let id = try wallet.requireID()
        let tip = try store.syncedTip(walletID: id)
        let balance = try store.balance(walletID: id, tipHeight: tip?.height)
        return BalanceReport(
            wallet: wallet.name, confirmed: try Amount(sats: balance.confirmed),
            unconfirmed: try Amount(sats: balance.unconfirmed), immature: try Amount(sats: balance.immature),
            frozen: try Amount(sats: balance.frozen), total: try Amount(sats: balance.total), height: tip?.height)
    }

    // MARK: addresses

    /// One derived address.
    public struct AddressEntry: Encodable, Sendable, Equatable {
        public var record: AddressRecord
        /// Its BIP329 label (untrusted text).
        public var label: String?

        enum CodingKeys: String, CodingKey { case address, keychain, index, used, script, label }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(record.address, forKey: .address)
            try container.encode(record.keychain.description, forKey: .keychain)
            try container.encode(record.index, forKey: .index)
            try container.encode(record.used, forKey: .used)
            try container.encode(record.script.hexString, forKey: .script)
            try container.encode(label, forKey: .label)
        }

        /// `INDEX  ADDRESS  used|unused  LABEL`, tab-separated, the label's hidden characters escaped.
        public var line: String {
            "\(record.index)\t\(record.address)\t\(record.used ? "used" : "unused")"
                + (label.map { "\t" + DisplayText.clean($0) } ?? "")
        }
    }

    /// `addresses`: the derived addresses of one keychain; `--json` is the array.
    public struct AddressesReport: ListReport, Sendable, Equatable {
        public var entries: [AddressEntry]

        public var lines: [String] {
            entries.isEmpty ? ["no addresses yet (run sync, or receive)"] : entries.map(\.line)
        }
    }

    /// The addresses of `wallet` on `keychain`, with their labels.
    public static func addresses(store: Store, wallet: WalletRecord, keychain: Keychain) throws -> AddressesReport {
        let id = try wallet.requireID()
        let labels = Dictionary(
            try store.labels(walletID: id).filter { $0.type == "addr" }.map { ($0.ref, $0.label ?? "") },
            uniquingKeysWith: { first, _ in first })
        let list = try store.addresses(walletID: id).filter { $0.keychain == keychain }
        return AddressesReport(entries: list.map { AddressEntry(record: $0, label: labels[$0.address]) })
    }

    // MARK: utxos

    /// One unspent output.
    public struct UTXOEntry: Encodable, Sendable, Equatable {
        public var utxo: UTXORecord
        /// Its address ("" when the script is not among the derived addresses).
        public var address: String

        enum CodingKeys: String, CodingKey {
            case outpoint, txid, vout, value, address, keychain, index, height, coinbase, frozen
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(utxo.outpoint.description, forKey: .outpoint)
            try container.encode(utxo.outpoint.txid.hexString, forKey: .txid)
            try container.encode(Int(utxo.outpoint.vout), forKey: .vout)
            try container.encode(utxo.value.sats, forKey: .value)
            try container.encode(address, forKey: .address)
            try container.encode(utxo.keychain.description, forKey: .keychain)
            try container.encode(utxo.index, forKey: .index)
            try container.encode(utxo.height, forKey: .height)
            try container.encode(utxo.isCoinbase, forKey: .coinbase)
            try container.encode(utxo.frozen, forKey: .frozen)
        }

        /// `OUTPOINT  VALUE BTC  ADDRESS  height H|unconfirmed  [frozen]  [coinbase]`.
        public var line: String {
            let when = utxo.height.map { "height \($0)" } ?? "unconfirmed"
            return "\(utxo.outpoint)  \(utxo.value.btcString) BTC  \(address)  \(when)"
                + (utxo.frozen ? "  frozen" : "") + (utxo.isCoinbase ? "  coinbase" : "")
        }
    }

    /// `utxos`: the unspent outputs; `--json` is the array.
    public struct UTXOsReport: ListReport, Sendable, Equatable {
        public var entries: [UTXOEntry]

        public var lines: [String] { entries.isEmpty ? ["no unspent outputs"] : entries.map(\.line) }
    }

    /// The unspent outputs of `wallet` with their addresses.
    public static func utxos(store: Store, wallet: WalletRecord) throws -> UTXOsReport {
        let id = try wallet.requireID()
        let addresses = Dictionary(
            try store.addresses(walletID: id).map { ($0.script, $0.address) }, uniquingKeysWith: { first, _ in first })
        return UTXOsReport(
            entries: try store.utxos(walletID: id).map { UTXOEntry(utxo: $0, address: addresses[$0.script] ?? "") })
    }

    /// `utxos freeze|unfreeze`: the coins whose state changed.
    public struct FreezeReport: Encodable, Sendable, Equatable {
        public var wallet: String
        public var frozen: Bool
        public var outpoints: [String]

        public var lines: [String] { outpoints.map { "\(frozen ? "frozen" : "unfrozen"): \($0)" } }
    }

    /// A coin-control request that names no coin, or text that is no outpoint.
    public enum FreezeError: Error, Equatable, Sendable, CustomStringConvertible, FailureClassifying {
        case noOutpoint
        case notAnOutpoint(String)

        public var failureKind: FailureKind {
            switch self {
            case .noOutpoint: .usage
            case .notAnOutpoint: .invalidInput
            }
        }

        public var description: String {
            switch self {
            case .noOutpoint: "name at least one outpoint TXID:VOUT"
            case .notAnOutpoint(let text): "'\(text)' is not an outpoint TXID:VOUT"
            }
        }
    }

    /// The outpoints `texts` name, every one checked before the store is touched.
    public static func outpoints(_ texts: [String]) throws(FreezeError) -> [OutPoint] {
        guard !texts.isEmpty else { throw .noOutpoint }
        return try texts.map { text throws(FreezeError) in
            guard let outpoint = try? OutPoint(string: text) else { throw .notAnOutpoint(text) }
            return outpoint
        }
    }

    /// Freezes (or unfreezes) `outpoints` of `wallet`: a frozen coin is never selected unless named.
    public static func setFrozen(store: Store, wallet: WalletRecord, outpoints: [OutPoint], frozen: Bool) throws
        -> FreezeReport
    {
        try store.setFrozen(outpoints, frozen: frozen, walletID: try wallet.requireID())
        return FreezeReport(wallet: wallet.name, frozen: frozen, outpoints: outpoints.map(\.description))
    }
}

extension WalletQueries {
    /// One wallet of `wallets`: a Bitcoin wallet or an Ethereum account.
    public enum WalletEntry: Encodable, Sendable, Equatable {
        case bitcoin(WalletRecord)
        case ethereum(EthereumAccount)

        enum CodingKeys: String, CodingKey {
            case name, chain, network, gapLimit, receiveDescriptor, changeDescriptor, chainId, addresses
        }

        /// A Bitcoin wallet has `network`, `gap_limit` and its descriptors (`change_descriptor` null when it has
        /// none); an Ethereum account `chain_id` and `addresses`; the keys of the other kind are absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .bitcoin(let wallet):
                try container.encode(wallet.name, forKey: .name)
                try container.encode("bitcoin", forKey: .chain)
                try container.encode(wallet.network.rawValue, forKey: .network)
                try container.encode(wallet.gapLimit, forKey: .gapLimit)
                try container.encode(wallet.descriptors[.external] ?? "", forKey: .receiveDescriptor)
                try container.encode(wallet.descriptors[.internal], forKey: .changeDescriptor)
            case .ethereum(let account):
                try container.encode(account.name, forKey: .name)
                try container.encode("ethereum", forKey: .chain)
                try container.encode(account.chainID, forKey: .chainId)
                try container.encode(account.entries.map(\.address.checksummed), forKey: .addresses)
            }
        }

        /// `NAME  bitcoin NETWORK  RECEIVE-DESCRIPTOR`, or `NAME  ethereum chain ID  FIRST-ADDRESS (+N more …)`.
        public var line: String {
            switch self {
            case .bitcoin(let w): return "\(w.name)\tbitcoin \(w.network.rawValue)\t\(w.descriptors[.external] ?? "")"
            case .ethereum(let a):
                let first = a.entries.first.map { "\($0.address)" } ?? ""
                let more = a.entries.count > 1 ? " (+\(a.entries.count - 1) more addresses)" : ""
                return "\(a.name)\tethereum chain \(a.chainID)\t\(first)\(more)"
            }
        }
    }

    /// `wallets`: every Bitcoin wallet, then every Ethereum account; `--json` is the array.
    public struct WalletsReport: ListReport, Sendable, Equatable {
        public var entries: [WalletEntry]

        /// The hint when there is none yet (for stderr), else nil.
        public var emptyHint: String? { entries.isEmpty ? "no wallets yet: airlock-watcher import IN" : nil }
    }

    /// The wallets and accounts of `store`.
    public static func wallets(store: Store) throws -> WalletsReport {
        WalletsReport(
            entries: try store.wallets().map(WalletEntry.bitcoin) + store.ethereumAccounts().map(WalletEntry.ethereum))
    }
}
