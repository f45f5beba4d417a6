import Bitcoin
import BitcoinCrypto
import SilentPayments

/// The silent-payment part of reviewing a PSBT (BIP375's Signer role), before the ordinary review: the BIP's rules
/// checked, this seed's ECDH shares and DLEQ proofs added, every other share's proof verified, and the output
/// scripts computed (docs/signer.md, "Silent payments"); the rules and lines are the SilentPayments module's.
///
/// A PSBT is signed only once every silent-payment output has its script; until then `pendingInputs` names the
/// inputs whose shares other signers must add (the answer is the PSBT with this seed's shares, unsigned). A rule
/// that refuses gives `SigningRefusal.silentPayment` (exit 4); malformed silent-payment fields are invalid input.
struct SilentPaymentSigning {
    /// The PSBT to review (with the shares and scripts), the review's lines, and a refusal when one applies.
    struct Outcome {
        var psbt: PSBT
        var notes: [String]
        var refusal: SigningRefusal?
        /// Eligible inputs still without another signer's share (nothing is signed while any is left).
        var pendingInputs: [Int] = []
        /// This seed's own change outputs (BIP352 label 0), by output index, with their BIP352 account.
        var change: [Int: UInt32] = [:]
    }

    /// Runs BIP375's signer step on `psbt` with this seed's keys.
    ///
    /// - Throws: `SigningSessionError` for malformed silent-payment fields (invalid input, exit 2).
    static func prepare(_ psbt: PSBT, master: ExtendedPrivateKey, network: Network) throws(SigningSessionError)
        -> Outcome
    {
        let provider = SeedKeyProvider(master: master)
        let keys = BIP375.signerKeys(
            psbt, bip32: { try? provider.privateKey(for: .bip32(publicKey: $0, origin: $1)) },
            taproot: { try? provider.privateKey(for: .taprootBIP32(key: $0, origin: $1)) })
        let step: BIP375.SignerStep
        do { step = try BIP375.signerStep(psbt, keys: keys) } catch {
            if error.failureKind == .refused {
                return Outcome(psbt: psbt, notes: [], refusal: .silentPayment("\(error)"))
            }
            throw SigningSessionError("invalid PSBT: \(error)")
        }
        let change = BIP375.ownChange(step.psbt, master: master, network: network)
        return Outcome(
            psbt: step.psbt, notes: BIP375.reviewNotes(step, network: network, change: change), refusal: nil,
            pendingInputs: step.pendingInputs, change: change)
    }
}
