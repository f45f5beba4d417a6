import Bitcoin
import Foundation
import GRDB

/// The two keychains of an account: receiving (external) and change (internal) addresses.
public enum Keychain: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case external = 0
    case `internal` = 1

    public var description: String { self == .external ? "receive" : "change" }
}

/// A wallet as stored: its name, network, gap limit and the descriptor of each keychain.
public struct WalletRecord: Sendable, Equatable {
    /// The database id (nil before it is stored).
    public var id: Int64?
    /// The name given at import.
    public var name: String
    /// The network its addresses are shown for.
    public var network: Network
    /// How many unused addresses in a row end discovery.
    public var gapLimit: Int
    /// The descriptor text (with checksum) of each keychain; a wallet without change has only `.external`.
    public var descriptors: [Keychain: String]

    public init(id: Int64? = nil, name: String, network: Network, gapLimit: Int, descriptors: [Keychain: String]) {
        self.id = id
        self.name = name
        self.network = network
        self.gapLimit = gapLimit
        self.descriptors = descriptors
    }

    /// The database id; throws for a record not read from the store.
    public func requireID() throws(StoreError) -> Int64 {
        guard let id else { throw .corrupt("wallet '\(name)' has no id") }
        return id
    }
}

extension Store {
    /// Stores a new wallet.
    ///
    /// - Throws: `StoreError.walletExists` when the name is taken.
    @discardableResult
    public func createWallet(_ wallet: WalletRecord) throws(StoreError) -> WalletRecord {
        try write { db in
            if try Int.fetchOne(db, sql: "SELECT 1 FROM wallet WHERE name = ?", arguments: [wallet.name]) != nil {
                throw StoreError.walletExists(wallet.name)
            }
            try db.execute(
                sql: "INSERT INTO wallet (name, network, gap_limit, created_at) VALUES (?, ?, ?, ?)",
                arguments: [wallet.name, wallet.network.rawValue, wallet.gapLimit, Int(Date().timeIntervalSince1970)])
            let id = db.lastInsertedRowID
            for (keychain, text) in wallet.descriptors {
                try db.execute(
                    sql: "INSERT INTO descriptor (wallet_id, keychain, text) VALUES (?, ?, ?)",
                    arguments: [id, keychain.rawValue, text])
                try db.execute(
                    sql: "INSERT INTO keychain_state (wallet_id, keychain, revealed) VALUES (?, ?, -1)",
                    arguments: [id, keychain.rawValue])
            }
            var stored = wallet
            stored.id = id
            return stored
        }
    }

    /// Every wallet, by name.
    public func wallets() throws(StoreError) -> [WalletRecord] {
        try read { db in try Self.fetchWallets(db) }
    }

    static func fetchWallets(_ db: Database) throws -> [WalletRecord] {
        var wallets: [WalletRecord] = []
        for row in try Row.fetchAll(db, sql: "SELECT id, name, network, gap_limit FROM wallet ORDER BY name") {
            let id: Int64 = row["id"]
            let networkName: String = row["network"]
            guard let network = Network(rawValue: networkName) else {
                throw StoreError.corrupt("wallet network '\(networkName)'")
            }
            var descriptors: [Keychain: String] = [:]
            for d in try Row.fetchAll(
                db, sql: "SELECT keychain, text FROM descriptor WHERE wallet_id = ?", arguments: [id])
            {
                guard let keychain = Keychain(rawValue: d["keychain"]) else { continue }
                descriptors[keychain] = d["text"]
            }
            wallets.append(
                WalletRecord(
                    id: id, name: row["name"], network: network, gapLimit: row["gap_limit"],
                    descriptors: descriptors))
        }
        return wallets
    }

    /// The wallet called `name`, or the only wallet when `name` is nil.
    ///
    /// - Throws: `StoreError.walletNotFound`, `.noWallet` or `.ambiguousWallet`.
    public func wallet(named name: String?) throws(StoreError) -> WalletRecord {
        let all = try wallets()
        if let name {
            guard let found = all.first(where: { $0.name == name }) else {
                throw .walletNotFound(name: name, known: all.map(\.name))
            }
            return found
        }
        guard let first = all.first else { throw .noWallet }
        guard all.count == 1 else { throw .ambiguousWallet(all.map(\.name)) }
        return first
    }

    /// Removes a wallet and everything stored for it.
    public func deleteWallet(id: Int64) throws(StoreError) {
        try write { db in try db.execute(sql: "DELETE FROM wallet WHERE id = ?", arguments: [id]) }
    }

    /// The highest index handed out by `receive --new` (or -1) per keychain.
    public func revealedIndexes(walletID: Int64) throws(StoreError) -> [Keychain: Int] {
        try read { db in
            var out: [Keychain: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT keychain, revealed FROM keychain_state WHERE wallet_id = ?", arguments: [walletID])
            {
                if let keychain = Keychain(rawValue: row["keychain"]) { out[keychain] = row["revealed"] }
            }
            return out
        }
    }

    /// Raises the revealed index of a keychain to at least `index`.
    public func reveal(walletID: Int64, keychain: Keychain, upTo index: Int) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO keychain_state (wallet_id, keychain, revealed) VALUES (?, ?, ?)
                    ON CONFLICT (wallet_id, keychain) DO UPDATE SET revealed = max(revealed, excluded.revealed)
                    """, arguments: [walletID, keychain.rawValue, index])
        }
    }
}
