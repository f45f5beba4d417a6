import Bitcoin
import Foundation

/// The PSBTs this watcher created, kept as files `psbt/<unsigned txid>.psbt` in the data directory: a signer may
/// return only its signatures (a trimmed PSBT), and the watcher combines them with the PSBT it created (which has
/// the UTXOs and scripts the finalizer needs).
public struct PSBTArchive: Sendable {
    /// The directory holding the files.
    public let directory: String

    /// The archive of the data directory that holds `store`.
    public init(store: Store) {
        directory = ((store.path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("psbt")
    }

    /// The file of the PSBT for `txid`.
    public func path(for txid: Txid) -> String {
        (directory as NSString).appendingPathComponent(txid.hexString + ".psbt")
    }

    /// Keeps `psbt` under its unsigned txid (replacing an earlier copy).
    ///
    /// - Throws: `StoreError.dataDirectory` when the file cannot be written.
    public func save(_ psbt: PSBT) throws(StoreError) {
        do {
            let txid = try psbt.unsignedTxid()
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(psbt.serialized()).write(to: URL(fileURLWithPath: path(for: txid)), options: .atomic)
        } catch {
            throw .dataDirectory(path: directory, reason: "cannot keep the PSBT: \(error)")
        }
    }

    /// The PSBT created for `txid`, or nil when this watcher did not create one.
    ///
    /// - Throws: `StoreError.corrupt` when the file exists but does not parse.
    public func load(_ txid: Txid) throws(StoreError) -> PSBT? {
        guard let data = FileManager.default.contents(atPath: path(for: txid)) else { return nil }
        do { return try PSBT(serialized: Array(data)) } catch {
            throw .corrupt("the kept PSBT \(path(for: txid)) does not parse: \(error)")
        }
    }

    /// `psbt` combined with the PSBT this watcher created for the same transaction, when there is one.
    ///
    /// - Throws: `StoreError` from `load`, `PSBTError` from combining.
    public func completed(_ psbt: PSBT) throws -> (psbt: PSBT, usedArchive: Bool) {
        guard let txid = try? psbt.unsignedTxid(), let own = try load(txid) else { return (psbt, false) }
        return (try own.combined(with: [psbt]), true)
    }
}
