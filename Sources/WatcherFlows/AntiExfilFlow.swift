import Bitcoin
import BitcoinCrypto
import Foundation
import SignToContract
import Watcher

/// The watcher's side of anti-exfil signing (docs/watcher.md, "Anti-exfil signing"): the session of each unsigned
/// transaction is kept beside the archived PSBT, `psbt/TXID.antiexfil.json` (mode 0600 in the 0700 `psbt`
/// directory), so the entropy never leaves this machine before the signer committed.
public struct AntiExfilKeeper: Sendable {
    /// The directory holding the sessions (the PSBT archive's).
    public let directory: String

    /// The keeper of the data directory that holds `store`.
    public init(store: Store) { directory = PSBTArchive(store: store).directory }

    /// A keeper of the sessions in `directory`.
    public init(directory: String) { self.directory = directory }

    func path(_ txid: String) -> String { (directory as NSString).appendingPathComponent(txid + ".antiexfil.json") }

    /// Keeps `session` (replacing an earlier one).
    ///
    /// - Throws: `StoreError.dataDirectory` when it cannot be written.
    public func save(_ session: AntiExfilSession) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try FileOutput.replaceRegularFile(
                Array(try encoder.encode(session)), at: path(session.txid), mode: 0o600, overwrite: true)
        } catch {
            throw .dataDirectory(path: directory, reason: "cannot keep the anti-exfil entropy: \(error)")
        }
    }

    /// The session of `psbt`'s transaction, nil when this watcher started none.
    ///
    /// - Throws: `StoreError.corrupt` when the file does not parse.
    public func load(for psbt: PSBT) throws(StoreError) -> AntiExfilSession? {
        guard let txid = try? psbt.unsignedTxid().hexString,
            let data = FileManager.default.contents(atPath: path(txid))
        else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(AntiExfilSession.self, from: data) } catch {
            throw .corrupt("the anti-exfil session \(path(txid)) does not parse: \(error)")
        }
    }

    /// What `finalize` does with a PSBT of an anti-exfil session.
    public enum Step: Sendable {
        /// Not an anti-exfil transaction: finalize as usual.
        case none
        /// The signer's first answer: its commitments recorded, the PSBT with the entropy revealed to sign next.
        case reveal(PSBT, keys: Int, retry: Bool)
    }

    /// The first answer turned into the PSBT to sign (the entropy revealed), or `.none` when `psbt` is not a first
    /// answer of a session of this watcher.
    ///
    /// - Throws: `AntiExfilError.commitmentChanged` (refused) when a retry brings other commitments; `StoreError`.
    public func step(_ psbt: PSBT) throws -> Step {
        guard var session = try load(for: psbt), session.isCommitAnswer(psbt) else { return .none }
        let (revealed, retry) = try session.reveal(psbt)
        try save(session)
        let keys = session.entries.filter { session.committedUnsigned($0, in: psbt) != nil }.count
        return .reveal(revealed, keys: keys, retry: retry)
    }

    /// Checks the signatures of `psbt` against its session (when there is one); how many were checked.
    ///
    /// - Throws: `AntiExfilError` (refused) when a signature does not match its commitment.
    public func verify(_ psbt: PSBT) throws -> Int {
        guard let session = try load(for: psbt) else { return 0 }
        return try session.verify(psbt)
    }

    /// The stderr lines after the reveal PSBT was written.
    public static func revealLines(keys: Int, retry: Bool) -> [String] {
        [
            "anti-exfil: the signer committed to the nonces of \(keys) key(s)"
                + (retry ? " (a retry: the same commitments as before)" : ""),
            "now show the signer this PSBT (airlock-signer sign); it signs with the entropy revealed here, and "
                + "finalize checks every signature against its commitment",
        ]
    }
}

/// `finalize --json` for the signer's first anti-exfil answer.
public struct AntiExfilRevealJSON: Encodable, Sendable {
    public let antiExfil = "reveal"
    public let keys: Int
    public let retry: Bool
    public let psbt: String
    public let written: [String]

    public init(keys: Int, retry: Bool, psbt: PSBT, written: [String]) {
        self.keys = keys
        self.retry = retry
        self.psbt = psbt.base64String
        self.written = written
    }

    enum CodingKeys: String, CodingKey {
        case antiExfil = "anti_exfil"
        case keys, retry, psbt, written
    }
}

extension AntiExfilError: FailureClassifying {
    public var failureKind: FailureKind {
        if case .malformedField = self { return .invalidInput }
        return .refused
    }
}
