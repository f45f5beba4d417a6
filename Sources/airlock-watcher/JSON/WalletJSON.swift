import Bitcoin
import CLISupport
import Ethereum
import Watcher

// The `--json` output types of the wallet queries (docs/architecture.md rule R9); goldens in Tests/Golden/json pin their shapes.

/// `balance --json`: sats as of the last sync.
struct BalanceJSON: Encodable, Sendable {
    let wallet: String
    let confirmed: UInt64
    let unconfirmed: UInt64
    let immature: UInt64
    let frozen: UInt64
    let total: UInt64
    @NullEncoded var height: Int?

    init(wallet: String, balance: Watcher.Balance, height: Int?) {
        self.wallet = wallet
        confirmed = balance.confirmed
        unconfirmed = balance.unconfirmed
        immature = balance.immature
        frozen = balance.frozen
        total = balance.total
        self.height = height
    }
}

/// One transaction of `history --json`.
struct HistoryJSON: Encodable, Sendable {
    let txid: String
    @NullEncoded var height: Int?
    @NullEncoded var blockHash: String?
    let verified: Bool
    let received: UInt64
    let sent: UInt64
    let net: Int64
    @NullEncoded var fee: UInt64?
    @NullEncoded var label: String?
    /// Blocks on top of and including its own (0 while unconfirmed), at the last sync's tip.
    let confirmations: Int
    /// When this watcher first saw it, `2026-11-26 14:02 UTC`.
    let firstSeen: String

    init(_ item: HistoryItem, label: String?, confirmations: Int, firstSeen: String) {
        txid = item.txid.hexString
        height = item.height
        blockHash = item.blockHash
        verified = item.verified
        received = item.received
        sent = item.sent
        net = item.net
        fee = item.fee
        self.label = label
        self.confirmations = confirmations
        self.firstSeen = firstSeen
    }
}

/// One coin of `utxos --json`.
struct UTXOJSON: Encodable, Sendable {
    let outpoint: String
    let txid: String
    let vout: Int
    let value: UInt64
    let address: String
    let keychain: String
    let index: Int
    @NullEncoded var height: Int?
    let coinbase: Bool
    let frozen: Bool

    init(_ utxo: UTXORecord, address: String) {
        outpoint = utxo.outpoint.description
        txid = utxo.outpoint.txid.hexString
        vout = Int(utxo.outpoint.vout)
        value = utxo.value.sats
        self.address = address
        keychain = utxo.keychain.description
        index = utxo.index
        height = utxo.height
        coinbase = utxo.isCoinbase
        frozen = utxo.frozen
    }
}

/// One address of `addresses --json`.
struct AddressJSON: Encodable, Sendable {
    let address: String
    let keychain: String
    let index: Int
    let used: Bool
    let script: String
    @NullEncoded var label: String?

    init(_ record: AddressRecord, label: String?) {
        address = record.address
        keychain = record.keychain.description
        index = record.index
        used = record.used
        script = record.script.hexString
        self.label = label
    }
}

/// `receive --json`.
struct ReceiveJSON: Encodable, Sendable {
    let address: String
    let index: Int
    let uri: String
    @NullEncoded var qr: String?
}

/// One wallet of `wallets --json`.
///
/// A Bitcoin wallet has `network`, `gap_limit` and its descriptors; an Ethereum account `chain_id` and `addresses`
/// (the keys of the other kind are absent).
struct WalletJSON: Encodable, Sendable {
    let name: String
    /// `bitcoin` or `ethereum`.
    let chain: String
    var network: String?
    var gapLimit: Int?
    var receiveDescriptor: String?
    var changeDescriptor: NullEncoded<String>?
    var chainId: UInt64?
    var addresses: [String]?

    init(_ wallet: WalletRecord) {
        name = wallet.name
        chain = "bitcoin"
        network = wallet.network.rawValue
        gapLimit = wallet.gapLimit
        receiveDescriptor = wallet.descriptors[.external] ?? ""
        changeDescriptor = NullEncoded(wrappedValue: wallet.descriptors[.internal])
    }

    init(_ account: EthereumAccount) {
        name = account.name
        chain = "ethereum"
        chainId = account.chainID
        addresses = account.entries.map(\.address.checksummed)
    }
}

/// `sync --json`.
struct SyncJSON: Encodable, Sendable {
    let wallet: String
    let height: Int
    let tip: String
    let scriptsChecked: Int
    let transactions: Int
    let newTransactions: Int
    let balance: UInt64
    @NullEncoded var mode: String?
}

/// `import --json`.
struct ImportJSON: Encodable, Sendable {
    let name: String
    let network: String
    let gapLimit: Int
    let source: String
    let receiveDescriptor: String
    @NullEncoded var changeDescriptor: String?
    let firstAddress: String
    /// The wallet's birthday (`--birthday`): a height or a date.
    @NullEncoded var birthday: String?
}
