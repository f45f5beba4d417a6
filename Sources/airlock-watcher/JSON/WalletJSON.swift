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
