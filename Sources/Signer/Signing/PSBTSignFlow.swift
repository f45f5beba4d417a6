public import Bitcoin
public import BitcoinCrypto

/// Why a PSBT is not signed, after it was read (the journal's verdict, or signing after the review).
public enum PSBTSignError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The PSBT is this vault's own signed answer fed back (when, the journal entry's number): invalid input.
    case signedAnswer(when: String, entry: Int)
    /// Signing failed after the review approved (why): refused.
    case notSigned(String)

    public var description: String {
        switch self {
        case .signedAnswer(let when, let entry):
            "this is the signed answer you wrote on \(when) (journal entry \(entry)), not a request: "
                + "take it to the watcher (airlock-watcher broadcast), or give the signer the unsigned PSBT"
        case .notSigned(let why): why
        }
    }
}

/// The signer's flow for one PSBT (docs/architecture.md section 5).
///
/// The journal consulted, the review and its
/// decision, then (after the front end showed the review and the user said yes) the signatures, the journal entry,
/// and the answer to write. It never prints or asks.
public struct PSBTSignFlow: Sendable {
    /// The PSBT as received.
    public let original: PSBT
    /// The review and what it approves.
    public let decision: SigningDecision
    let vault: UnlockedVault

    /// What the journal says about `psbt` before it is reviewed: a note when the same transaction was signed before
    /// (it is reviewed again), nil when the journal has no entry for it or cannot be read (`audit --verify` reports
    /// a damaged journal).
    ///
    /// - Throws: `PSBTSignError.signedAnswer` for this vault's own signed answer fed back.
    public static func history(of psbt: PSBT, in vault: UnlockedVault) throws(PSBTSignError) -> String? {
        guard let entries = try? vault.auditLog.entries(),
            let finding = SigningHistory.finding(for: psbt, entries: entries, key: vault.auditKey)
        else { return nil }
        let entry = finding.entry
        let when = entry.time.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
        switch finding {
        case .signedAnswer: throw .signedAnswer(when: when, entry: entry.sequence)
        case .signedBefore:
            return "note: this transaction was already signed on \(when) (journal entry \(entry.sequence)); "
                + "it is reviewed again below"
        }
    }

    /// Reviews `psbt` with this vault's keys under `policy` (its network set to the vault's).
    ///
    /// - Throws: `SigningSessionError` for a malformed transaction.
    public init(_ psbt: PSBT, vault: UnlockedVault, master: ExtendedPrivateKey, policy: SigningPolicy) throws {
        var policy = policy
        policy.network = vault.network
        original = psbt
        decision = try SigningSession(vault: vault, master: master, policy: policy).review(psbt)
        self.vault = vault
    }

    /// What signing gives: the signatures, the PSBT to write, and the final transaction when asked and complete.
    public struct Result: Sendable {
        /// The signatures and the whole signed PSBT.
        public let signed: SignedPSBT
        /// The PSBT to write: the finalized one when finalizing (unless trimmed), else the answer.
        public let written: PSBT
        /// The network transaction, when finalizing completed it.
        public let transaction: Transaction?
    }

    /// Signs the approved inputs, records the signature in the journal (with the `--allow-*` flags given), and
    /// chooses the answer: with `finalize` and a complete transaction the finalized PSBT (or the trimmed answer
    /// with `trim`) and the transaction; else `SignedPSBT.answer(full:trim:)`.
    ///
    /// - Throws: `PSBTSignError.notSigned` when nothing could be signed, `AuditError`/`VaultError` when the journal
    ///   cannot be written, `PSBTError` when the finalized transaction cannot be extracted.
    /// While a silent payment still lacks other signers' shares (`decision.pendingShares`), nothing is signed or
    /// journaled: the answer is the whole PSBT with this vault's shares.
    public func sign(allowFlags: [String], finalize: Bool, full: Bool, trim: Bool) throws -> Result {
        guard decision.pendingShares.isEmpty else {
            guard decision.isApproved else { throw PSBTSignError.notSigned("refused: no input approved") }
            let shared = SignedPSBT(psbt: decision.original, signedInputs: [])
            return Result(signed: shared, written: decision.original, transaction: nil)
        }
        let signed: SignedPSBT
        do { signed = try decision.sign() } catch let error as SigningSessionError {
            throw PSBTSignError.notSigned(error.description)
        }
        try vault.recordSignature(
            unsignedPSBT: original.serialized(),
            summary: AuditSummary(review: decision.review).recording(
                allowFlags: allowFlags, signedInputs: signed.signedInputs))
        return try Self.answer(signed, finalize: finalize, full: full, trim: trim)
    }

    /// The PSBT to write and the transaction, as `sign` chooses them.
    static func answer(_ signed: SignedPSBT, finalize: Bool, full: Bool, trim: Bool) throws -> Result {
        guard finalize, let finalized = signed.finalized else {
            return Result(signed: signed, written: signed.answer(full: full, trim: trim), transaction: nil)
        }
        let transaction = try finalized.extractTransaction()
        return Result(
            signed: signed, written: trim ? signed.answer(full: full, trim: trim) : finalized, transaction: transaction)
    }
}
