import Bitcoin
import BitcoinCrypto
import SilentPayments

/// The silent-payment part of reviewing a PSBT (BIP375's Signer role), before the ordinary review: the BIP's rules
/// checked, this seed's ECDH shares and DLEQ proofs added, every other share's proof verified, and the output
/// scripts computed (docs/signer.md, "Silent payments").
///
/// A PSBT is signed only once every silent-payment output has its script; until then, or when a rule refuses it,
/// the review carries `SigningRefusal.silentPayment` (exit 4). Malformed silent-payment fields are invalid input.
struct SilentPaymentSigning {
    /// The PSBT to review (with the shares and scripts), the review's lines, and a refusal when one applies.
    struct Outcome {
        var psbt: PSBT
        var notes: [String]
        var refusal: SigningRefusal?
    }

    /// The keys of this seed that BIP352 counts, by input: the BIP32 key of a P2PKH, P2WPKH or P2SH-P2WPKH input,
    /// the tweaked output key of a taproot key-path input.
    static func keys(_ psbt: PSBT, provider: SeedKeyProvider) -> [Int: PrivateKey] {
        var keys: [Int: PrivateKey] = [:]
        for (index, input) in psbt.inputs.enumerated() {
            guard case .eligible(_, let isTaproot)? = try? BIP375.inputKind(psbt, input: index) else { continue }
            if isTaproot {
                for derivation in input.tapBIP32Derivations where derivation.leafHashes.isEmpty {
                    guard input.tapInternalKey == nil || input.tapInternalKey == derivation.key,
                        let internalKey = try? provider.privateKey(
                            for: .taprootBIP32(key: derivation.key, origin: derivation.origin)),
                        let tweaked = try? internalKey.taprootTweaked(merkleRoot: input.tapMerkleRoot)
                    else { continue }
                    keys[index] = tweaked
                    break
                }
            } else {
                for derivation in input.bip32Derivations {
                    guard
                        let key = try? provider.privateKey(
                            for: .bip32(publicKey: derivation.publicKey, origin: derivation.origin))
                    else { continue }
                    keys[index] = key
                    break
                }
            }
        }
        return keys
    }

    /// Runs BIP375's signer step on `psbt` with this seed's keys.
    ///
    /// - Throws: `SigningSessionError` for malformed silent-payment fields (invalid input, exit 2).
    static func prepare(_ psbt: PSBT, provider: SeedKeyProvider, network: Network) throws(SigningSessionError)
        -> Outcome
    {
        let step: BIP375.SignerStep
        do { step = try BIP375.signerStep(psbt, keys: keys(psbt, provider: provider)) } catch {
            if error.failureKind == .refused {
                return Outcome(psbt: psbt, notes: [], refusal: .silentPayment("\(error)"))
            }
            throw SigningSessionError("invalid PSBT: \(error)")
        }
        var notes: [String] = []
        for output in BIP375.outputs(of: step.psbt) {
            let amount = output.amount.map { "\($0.btcString) BTC" } ?? "an unknown amount"
            notes.append(
                "\(amount) to \(output.address(network: network).encoded) (silent payment), output \(output.index): "
                    + "its taproot script was computed here from the inputs' ECDH shares, every share's proof verified")
        }
        guard step.complete else {
            return Outcome(
                psbt: step.psbt, notes: notes,
                refusal: .silentPayment(
                    "the silent-payment output scripts need the ECDH shares of inputs this vault does not hold keys "
                        + "for; nothing is signed until the other signers have added theirs (BIP375)"))
        }
        return Outcome(psbt: step.psbt, notes: notes, refusal: nil)
    }
}
