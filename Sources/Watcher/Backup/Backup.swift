import Bitcoin
import Descriptors
import Foundation
import GRDB

/// The watcher's backup: everything but chain data, as versioned JSON.
///
/// Restoring and syncing gives the same wallets.
public struct Backup: Sendable, Equatable, Codable {
    /// Always `airlock-watcher-backup`.
    public var format: String
    /// The format version; this build writes and reads 1.
    public var version: Int
    public var createdAt: Int
    public var settings: [String: String]
    public var wallets: [Wallet]
    /// Ethereum accounts (absent in backups from before Ethereum; docs/architecture.md section 10).
    public var ethereum: [EthereumAccountBackup]?

    /// The current format version.
    public static let currentVersion = 1
    public static let formatName = "airlock-watcher-backup"

    /// One wallet in a backup.
    public struct Wallet: Sendable, Equatable, Codable {
        public var name: String
        public var network: String
        public var gapLimit: Int
        /// `receive` and `change` descriptors.
        public var descriptors: [String: String]
        /// The highest index handed out per keychain, and the highest used one.
        public var revealedIndexes: [String: Int]
        public var usedIndexes: [String: Int]
        public var labels: [Label]
    }
}

/// Errors of backup and restore.
public enum BackupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not a backup of this format.
    case invalid(String)
    /// A newer version than this build reads.
    case unsupportedVersion(Int)
    /// The data directory holds wallets or settings; restoring needs `--force`.
    case wouldOverwrite([String])
    case store(StoreError)

    public var description: String {
        switch self {
        case .invalid(let why): "not a valid airlock-watcher backup: \(why)"
        case .unsupportedVersion(let v):
            "backup version \(v) is newer than this airlock-watcher reads (\(Backup.currentVersion))"
        case .wouldOverwrite(let names):
            "the data directory already holds \(names.joined(separator: ", ")); restore --force replaces it"
        case .store(let error): error.description
        }
    }
}

extension Store {
    /// A backup of every wallet, its labels and indexes, and the settings.
    public func makeBackup() throws(StoreError) -> Backup {
        var wallets: [Backup.Wallet] = []
        for wallet in try self.wallets() {
            let id = try wallet.requireID()
            let revealed = try revealedIndexes(walletID: id)
            let used = try addresses(walletID: id).filter(\.used)
            var usedIndexes: [String: Int] = [:]
            for keychain in Keychain.allCases {
                if let max = used.filter({ $0.keychain == keychain }).map(\.index).max() {
                    usedIndexes[keychain.description] = max
                }
            }
            wallets.append(
                Backup.Wallet(
                    name: wallet.name, network: wallet.network.rawValue, gapLimit: wallet.gapLimit,
                    descriptors: Dictionary(
                        uniqueKeysWithValues: wallet.descriptors.map { ($0.key.description, $0.value) }),
                    revealedIndexes: Dictionary(uniqueKeysWithValues: revealed.map { ($0.key.description, $0.value) }),
                    usedIndexes: usedIndexes, labels: try labels(walletID: id)))
        }
        return Backup(
            format: Backup.formatName, version: Backup.currentVersion, createdAt: Int(Date().timeIntervalSince1970),
            settings: try settings(), wallets: wallets, ethereum: try ethereumBackups())
    }

    /// Restores a backup.
    ///
    /// Without `force`, refuses when the store has any wallet or setting; with it, replaces them.
    ///
    /// - Throws: `BackupError`.
    public func restore(_ backup: Backup, force: Bool) throws(BackupError) {
        guard backup.format == Backup.formatName else { throw .invalid("format is '\(backup.format)'") }
        guard backup.version <= Backup.currentVersion, backup.version >= 1 else {
            throw .unsupportedVersion(backup.version)
        }
        var records: [(WalletRecord, Backup.Wallet)] = []
        for wallet in backup.wallets {
            guard let network = Network(rawValue: wallet.network) else { throw .invalid("network '\(wallet.network)'") }
            var descriptors: [Keychain: String] = [:]
            for (key, text) in wallet.descriptors {
                guard let keychain = Keychain.allCases.first(where: { $0.description == key }) else {
                    throw .invalid("keychain '\(key)'")
                }
                guard let parsed = try? Descriptor(string: text), !parsed.hasPrivateKeys else {
                    throw .invalid("descriptor of wallet \(wallet.name)")
                }
                descriptors[keychain] = text
            }
            guard descriptors[.external] != nil, (1...1000).contains(wallet.gapLimit) else {
                throw .invalid("wallet \(wallet.name) lacks a receive descriptor or a valid gap limit")
            }
            for (n, label) in wallet.labels.enumerated() {
                do { try label.validate(line: n + 1) } catch {
                    throw .invalid("label \(n + 1) of \(wallet.name): \(error)")
                }
            }
            records.append(
                (
                    WalletRecord(
                        name: wallet.name, network: network, gapLimit: wallet.gapLimit, descriptors: descriptors),
                    wallet
                ))
        }
        let ethereum = try Self.parseEthereum(backup.ethereum ?? [])
        do {
            try pool.write { db in
                let existing =
                    try Self.fetchWallets(db).map(\.name)
                    + (try String.fetchAll(db, sql: "SELECT name FROM eth_account")).map { "Ethereum account " + $0 }
                let settingCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM setting") ?? 0
                if !force, !existing.isEmpty || settingCount > 0 {
                    var what = existing.map { "wallet '\($0)'" }
                    if settingCount > 0 { what.append("settings") }
                    throw BackupError.wouldOverwrite(what)
                }
                try db.execute(sql: "DELETE FROM wallet")
                try db.execute(sql: "DELETE FROM eth_account")
                try db.execute(sql: "DELETE FROM setting")
                for (key, value) in backup.settings {
                    try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
                }
                for (record, wallet) in records {
                    try db.execute(
                        sql: "INSERT INTO wallet (name, network, gap_limit, created_at) VALUES (?, ?, ?, ?)",
                        arguments: [
                            record.name, record.network.rawValue, record.gapLimit, Int(Date().timeIntervalSince1970),
                        ])
                    let id = db.lastInsertedRowID
                    for (keychain, text) in record.descriptors {
                        let revealed = wallet.revealedIndexes[keychain.description] ?? -1
                        try db.execute(
                            sql: "INSERT INTO descriptor (wallet_id, keychain, text) VALUES (?, ?, ?)",
                            arguments: [id, keychain.rawValue, text])
                        try db.execute(
                            sql: "INSERT INTO keychain_state (wallet_id, keychain, revealed) VALUES (?, ?, ?)",
                            arguments: [
                                id, keychain.rawValue, max(revealed, wallet.usedIndexes[keychain.description] ?? -1),
                            ])
                    }
                    for label in wallet.labels {
                        try db.execute(
                            sql:
                                "INSERT OR REPLACE INTO label (wallet_id, type, ref, label, origin, spendable) VALUES (?, ?, ?, ?, ?, ?)",
                            arguments: [id, label.type, label.ref, label.label, label.origin, label.spendable])
                    }
                }
                try Self.insertEthereum(ethereum, db: db)
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .store(Store.map(error))
        }
    }
}
