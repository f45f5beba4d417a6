import Codecs
import Foundation
import Watcher

/// `backup`, `restore` and `labels export|import`: what goes into the files and what comes back from them.
public enum BackupFlow {
    /// `backup --out FILE`: the file written and the wallets in it.
    public struct BackupReport: Encodable, Sendable, Equatable {
        public var file: String
        public var wallets: [String]

        public init(file: String, wallets: [String]) {
            self.file = file
            self.wallets = wallets
        }

        public var line: String { "backed up \(wallets.count) wallet(s) to \(file)" }
    }

    /// `restore FILE`: the wallets restored.
    public struct RestoreReport: Encodable, Sendable, Equatable {
        public var restored: [String]

        public var lines: [String] {
            [
                "restored \(restored.count) wallet(s): \(restored.joined(separator: ", "))",
                "run sync to fetch their history",
            ]
        }
    }

    /// `labels export FILE`: how many labels went to which file (told on stderr, stdout being free for `-`).
    public struct LabelsExportReport: Encodable, Sendable, Equatable {
        public var exported: Int
        public var file: String

        public init(exported: Int, file: String) {
            self.exported = exported
            self.file = file
        }

        public var line: String { "exported \(exported) labels to \(file)" }
    }

    /// `labels import FILE`: how many labels were stored, into which wallet.
    public struct LabelsImportReport: Encodable, Sendable, Equatable {
        public var imported: Int
        /// The wallet (not in `--json`).
        public var wallet: String

        enum CodingKeys: String, CodingKey { case imported }

        public var line: String { "imported \(imported) labels into '\(wallet)'" }
    }

    /// The backup of `store` as versioned JSON (snake_case keys, sorted, pretty), and the names of its wallets.
    public static func backup(store: Store) throws -> (data: Data, wallets: [String]) {
        let backup = try store.makeBackup()
        let value = try JSONValueEncoder(snakeCaseKeys: true).encode(backup).sortingMembers()
        return (Data(value.prettySerialized()), backup.wallets.map(\.name))
    }

    /// Reads a backup (`data`, from the file `name`): nothing is written when it is not backup JSON.
    ///
    /// - Throws: `BackupError.invalid`.
    public static func read(_ data: Data, name: String) throws(BackupError) -> Backup {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(Backup.self, from: data) } catch { throw .invalid("\(name) is not backup JSON") }
    }

    /// Restores `backup` into `store`; existing wallets and settings are replaced only with `force`.
    public static func restore(_ backup: Backup, store: Store, force: Bool) throws(BackupError) -> RestoreReport {
        try store.restore(backup, force: force)
        return RestoreReport(restored: backup.wallets.map(\.name))
    }

    /// `labels export`: the wallet's labels as BIP329 JSON Lines, and how many.
    public static func exportLabels(store: Store, wallet: WalletRecord) throws -> (text: String, count: Int) {
        let labels = try store.labels(walletID: try wallet.requireID())
        return (LabelsFile.serialize(labels), labels.count)
    }

    /// `labels import`: every line checked before any label is stored.
    ///
    /// `openWallet` is called only once every line has parsed.
    public static func importLabels(_ text: String, openWallet: () throws -> (Store, WalletRecord)) throws
        -> LabelsImportReport
    {
        let labels = try LabelsFile.parse(text)
        let (store, wallet) = try openWallet()
        try store.upsertLabels(labels, walletID: try wallet.requireID())
        return LabelsImportReport(imported: labels.count, wallet: wallet.name)
    }
}
