/// Errors from the watcher's database and the wallets in it.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite failed: its result code and message.
    case sqlite(code: Int32, message: String)
    /// The data directory cannot be created or opened.
    case dataDirectory(path: String, reason: String)
    /// No wallet has this name.
    case walletNotFound(name: String, known: [String])
    /// A wallet with this name exists already.
    case walletExists(String)
    /// No wallet has been imported yet.
    case noWallet
    /// Several wallets exist and none was named.
    case ambiguousWallet([String])
    /// Stored data does not parse (a descriptor, a transaction): what and why.
    case corrupt(String)
    /// The database was written by a newer version of airlock-watcher.
    case newerSchema(String)
    /// The wallet has no unspent output `txid:vout` (to freeze or unfreeze).
    case unknownOutput(String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message): "database error \(code): \(message)"
        case .dataDirectory(let path, let reason): "cannot use the data directory \(path): \(reason)"
        case .walletNotFound(let name, let known):
            "no wallet named '\(name)'"
                + (known.isEmpty ? " (no wallets yet; use import)" : "; wallets: \(known.joined(separator: ", "))")
        case .walletExists(let name): "a wallet named '\(name)' exists already; choose another --name"
        case .noWallet: "no wallet yet: import one first (airlock-watcher import DESCRIPTOR-FILE)"
        case .ambiguousWallet(let names):
            "several wallets (\(names.joined(separator: ", "))): pick one with --wallet NAME"
        case .corrupt(let what): "stored data is damaged: \(what)"
        case .newerSchema(let name): "the database has migration '\(name)' from a newer airlock-watcher"
        case .unknownOutput(let outpoint): "the wallet has no unspent output \(outpoint) (sync first?)"
        }
    }
}
