public import Bitcoin
public import BitcoinCrypto
public import Chance

/// Why a Chance wallet `multisig:` text is not signed.
public enum ChanceSignError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text, its previous transactions, or the answer is not what it should be (why): invalid input.
    case invalid(String)
    /// Signing was refused after the review (why).
    case notSigned(String)

    public var description: String {
        switch self {
        case .invalid(let why), .notSigned(let why): why
        }
    }
}

/// The signer's flow for a Chance wallet `multisig:` text (legacy P2SH multisig; docs/architecture.md section 3).
///
/// The same review and rules as a PSBT (`ChanceSigningSession`), then the signatures recorded in the journal and the
/// answer: the same text with this vault's signatures under its key position(s), and the final transaction when
/// asked for and complete. It never prints or asks.
public struct ChanceSignFlow: Sendable {
    /// The review's decision.
    public let chance: ChanceSigningDecision
    let vault: UnlockedVault

    /// Reads a `multisig:` text.
    ///
    /// - Throws: `ChanceSignError.invalid`.
    public static func read(_ raw: String) throws(ChanceSignError) -> ChanceMultisig {
        do { return try ChanceMultisig(string: raw) } catch { throw .invalid(error.description) }
    }

    /// Reviews `text` (the legacy inputs' amounts from `previous`) with this vault's keys under `policy` (its network
    /// set to the vault's).
    ///
    /// - Throws: `ChanceSignError.invalid` when no registered wallet derives its redeem script, or it is malformed.
    public init(
        _ text: ChanceMultisig, previous: [Transaction], vault: UnlockedVault, master: ExtendedPrivateKey,
        policy: SigningPolicy
    ) throws(ChanceSignError) {
        var policy = policy
        policy.network = vault.network
        do {
            chance = try ChanceSigningSession(SigningSession(vault: vault, master: master, policy: policy))
                .review(text, previousTransactions: previous)
        } catch { throw .invalid(error.description) }
        self.vault = vault
    }

    /// What signing gives.
    public struct Result: Sendable {
        /// The text with this vault's signatures.
        public let text: ChanceMultisig
        /// The inputs signed.
        public let signedInputs: [Int]
        /// The key positions this vault signed under.
        public let positions: [Int]
        /// The network transaction, when finalizing was asked and the text is complete.
        public let transaction: Transaction?
    }

    /// Signs the approved inputs, records the signature in the journal (with the `--allow-*` flags given), and with
    /// `finalize` gives the final transaction once the threshold has signed.
    ///
    /// - Throws: `ChanceSignError.notSigned` when the review refused, `.invalid` when the answer cannot be written
    ///   back as a text or finalized, `AuditError`/`VaultError` when the journal cannot be written.
    public func sign(allowFlags: [String], finalize: Bool) throws -> Result {
        let signed: (text: ChanceMultisig, signedInputs: [Int], positions: [Int])
        do { signed = try chance.sign() } catch let error as SigningSessionError {
            throw ChanceSignError.notSigned(error.description)
        } catch let error as ChanceSigningError { throw ChanceSignError.invalid(error.description) }
        try vault.recordSignature(
            unsignedPSBT: chance.psbt.serialized(),
            summary: AuditSummary(review: chance.decision.review).recording(
                allowFlags: allowFlags, signedInputs: signed.signedInputs))
        var transaction: Transaction?
        if finalize, signed.text.isComplete {
            do { transaction = try signed.text.finalTransaction() } catch {
                throw ChanceSignError.invalid(error.description)
            }
        }
        return Result(
            text: signed.text, signedInputs: signed.signedInputs, positions: signed.positions, transaction: transaction)
    }
}
