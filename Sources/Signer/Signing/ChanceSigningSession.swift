import Bitcoin
import BitcoinCrypto
import Chance

/// Why a Chance `multisig:` text cannot even be reviewed (exit 2): the text, a previous transaction or the
/// conversion is invalid.
public struct ChanceSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Signing a Chance wallet `multisig:` text (docs/architecture.md section 3) with the PSBT signer's rules
/// (docs/architecture.md section 5).
///
/// The text is turned into a PSBT: the previous transactions given supply the legacy inputs' amounts (each checked
/// against the input's txid and the redeem script's P2SH script), and the registered `sh(multi/sortedmulti)` wallet
/// whose receive or change branch derives the redeem script (first `searchLimit` indexes) supplies every key's
/// derivation, and the derivation of outputs paying the same wallet (its change). That PSBT goes through
/// `SigningSession` unchanged: the same review, change rule, fee checks, low-R RFC 6979 signatures. The signed PSBT
/// is turned back into the text with this vault's signatures under its key position(s).
///
/// A redeem script that no registered wallet derives is refused (`SigningRefusal.unregisteredRedeemScript`): without
/// the wallet the signer could not tell its change from a payment. Inputs without a previous transaction leave the
/// fee unknown and are refused (`SigningRefusal.legacyAmountsUnknown`).
public struct ChanceSigningSession: Sendable {
    /// How many indexes of each branch are searched for the redeem script and for change.
    public static let searchLimit: UInt32 = 1000

    public let session: SigningSession

    public init(_ session: SigningSession) { self.session = session }

    /// A registered wallet and where the redeem script sits in it.
    public struct WalletMatch: Sendable {
        public let wallet: MultisigWallet
        public let branch: Int
        public let index: UInt32
    }

    /// Reviews `text` with `previousTransactions` (raw transactions the inputs spend, any order).
    ///
    /// - Throws: `ChanceSigningError` for a previous transaction no input spends or that does not match, or a PSBT
    ///   that cannot be reviewed.
    public func review(_ text: ChanceMultisig, previousTransactions: [Transaction]) throws(ChanceSigningError)
        -> ChanceSigningDecision
    {
        let spent = Set(text.transaction.inputs.map(\.previousOutput.txid))
        for previous in previousTransactions where !spent.contains(previous.txid) {
            throw ChanceSigningError(
                "--prev-tx: transaction \(previous.txid) is spent by no input of this transaction")
        }
        var psbt: PSBT
        do { psbt = try text.psbt(previousTransactions: previousTransactions) } catch {
            throw ChanceSigningError(error.description)
        }
        let match = findWallet(for: text)
        if let match { try annotate(&psbt, text: text, match: match) }
        var decision: SigningDecision
        do { decision = try session.review(psbt) } catch { throw ChanceSigningError(error.description) }
        let missing = psbt.inputs.indices.filter { psbt.inputs[$0].nonWitnessUTXO == nil }
        var review = decision.review
        if match == nil {
            review.refusals.removeAll { $0 == .nothingToSign }
            review.refuse(.unregisteredRedeemScript)
        }
        if !missing.isEmpty {
            // The redeem script is the registered wallet's: what stops signing is the unknown amounts, not the wallet
            // (an input without its previous transaction has no script to check ownership against).
            review.refusals.removeAll {
                if $0 == .unknownFee { return true }
                guard match != nil else { return false }
                if case .unregisteredInputs = $0 { return true }
                return $0 == .nothingToSign
            }
            review.refuse(.legacyAmountsUnknown(missing))
        }
        review.notes.append(
            "multisig: text (Chance wallet): \(text.threshold) of \(text.keys.count) legacy P2SH, signed so far by key "
                + "position(s) "
                + (text.signedPositions.isEmpty
                    ? "none" : text.signedPositions.map(String.init).joined(separator: ", "))
                + (match.map {
                    "; wallet '\($0.wallet.name)' branch \($0.branch) index \($0.index)"
                } ?? ""))
        if !missing.isEmpty {
            review.notes.append(
                "legacy inputs carry no amounts: the amounts of input(s) "
                    + missing.map(String.init).joined(separator: ", ")
                    + " and the fee are UNKNOWN without their previous transactions (--prev-tx FILE); until then "
                    + "the inputs cannot be matched to the wallet, so its change is listed as a payment")
        }
        decision = SigningDecision(
            original: decision.original, psbt: decision.psbt, resolvedOrigins: decision.resolvedOrigins,
            review: review, approvedInputs: decision.approvedInputs, unregisteredInputs: decision.unregisteredInputs,
            provider: decision.provider)
        return ChanceSigningDecision(text: text, match: match, decision: decision)
    }

    /// The registered `sh(…)` multisig wallet whose receive or change branch derives `text`'s redeem script.
    public func findWallet(for text: ChanceMultisig) -> WalletMatch? {
        for wallet in session.multisigWallets where wallet.scriptType == "sh" {
            guard let descriptor = try? wallet.descriptor, let keys = try? wallet.cosigners,
                keys.count == text.keys.count
            else { continue }
            let wanted = Set(text.keys)
            for branch in 0..<min(descriptor.multipathCount, 2) {
                for index in 0..<Self.searchLimit {
                    // One key first: the full script only when it is one of the redeem script's keys.
                    guard let first = try? keys[0].publicKey(at: index, path: branch).key, wanted.contains(first)
                    else { continue }
                    if (try? descriptor.scriptPubKey(at: index, path: branch)) == text.scriptPubKey {
                        return WalletMatch(wallet: wallet, branch: branch, index: index)
                    }
                }
            }
        }
        return nil
    }

    /// Adds the wallet's key derivations to every input, and to outputs that pay the same wallet.
    func annotate(_ psbt: inout PSBT, text: ChanceMultisig, match: WalletMatch) throws(ChanceSigningError) {
        guard let descriptor = try? match.wallet.descriptor, let keys = try? match.wallet.cosigners else { return }
        for key in keys {
            guard let derived = try? key.publicKey(at: match.index, path: match.branch),
                let origin = key.keyOrigin(at: match.index, path: match.branch)
            else { continue }
            for input in psbt.inputs.indices { psbt.addBIP32Derivation(derived.key, origin: origin, input: input) }
        }
        let outputs = text.transaction.outputs.enumerated().filter {
            if case .p2sh = $0.element.scriptPubKey.template { true } else { false }
        }
        guard !outputs.isEmpty else { return }
        let limit = max(Self.searchLimit, match.index + Self.searchLimit)
        var remaining = Dictionary(
            outputs.map { ($0.element.scriptPubKey, $0.offset) }, uniquingKeysWith: { a, _ in a })
        for branch in 0..<min(descriptor.multipathCount, 2) {
            for index in 0..<limit where !remaining.isEmpty {
                guard let script = try? descriptor.scriptPubKey(at: index, path: branch),
                    let output = remaining.removeValue(forKey: script)
                else { continue }
                for key in keys {
                    guard let derived = try? key.publicKey(at: index, path: branch),
                        let origin = key.keyOrigin(at: index, path: branch)
                    else { continue }
                    psbt.addBIP32Derivation(derived.key, origin: origin, output: output)
                }
            }
        }
    }
}

/// What `ChanceSigningSession.review` decided.
public struct ChanceSigningDecision: Sendable {
    /// The text as read.
    public let text: ChanceMultisig
    /// The registered wallet that derives the redeem script, if any.
    public let match: ChanceSigningSession.WalletMatch?
    /// The PSBT decision (review, approved inputs, refusals).
    public let decision: SigningDecision

    /// The PSBT reviewed (what the journal records).
    public var psbt: PSBT { decision.original }

    /// Signs the approved inputs and returns the text with this vault's signatures under its key position(s).
    ///
    /// - Throws: `SigningSessionError` when refused, `PSBTError` from the signer's checks, `ChanceSigningError` when
    ///   the signed PSBT cannot be written back as a text (a key that signed only some inputs).
    public func sign() throws -> (text: ChanceMultisig, signedInputs: [Int], positions: [Int]) {
        let signed = try decision.sign()
        let result: ChanceMultisig
        do { result = try ChanceMultisig(psbt: signed.psbt) } catch { throw ChanceSigningError(error.description) }
        let positions = result.signedPositions.filter { !text.signedPositions.contains($0) }
        return (try result.combined(with: [text]), signed.signedInputs, positions)
    }
}
