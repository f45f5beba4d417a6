import Bitcoin
import BitcoinCrypto
import SignToContract

/// What a signing pass did.
public struct SigningReport: Sendable {
    /// The PSBT with the new signatures.
    public var psbt: PSBT
    /// Inputs that received at least one signature.
    public var signedInputs: [Int]
    /// Inputs left unsigned, with the reason (not ours, already finalized, nothing to sign with).
    public var skippedInputs: [Int: String]
}

/// The BIP174 Signer: signs the inputs whose keys a `KeyProvider` holds, after the BIP174 signer checks, with strict
/// options unless widened (docs/architecture.md rule R7).
///
/// ECDSA signatures are deterministic (RFC6979) and low-R; Schnorr signatures use fresh auxiliary randomness. The
/// signature hashes of all inputs share one `SighashCache`, so N inputs cost O(N).
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#signer
public struct PSBTSigner: Sendable {
    /// The widenings in force.
    public let options: SigningOptions

    /// A signer with `options` (strict by default).
    public init(options: SigningOptions = .strict) { self.options = options }

    /// Signs the inputs of `psbt` that `provider` holds keys for; with `only`, none outside that set (the inputs a
    /// review approved).
    ///
    /// - Throws: `PSBTError.signerCheckFailed` when an input's scripts or UTXOs are inconsistent (BIP174's signer
    ///   checks), `.nonStandardSighash` for a sighash type the options don't allow, `.missingUTXO` for an input
    ///   this seed could sign but whose UTXO is absent. Nothing is signed when any of these is thrown.
    public func sign(_ psbt: PSBT, with provider: some KeyProvider, only approved: Set<Int>? = nil) throws(PSBTError)
        -> SigningReport
    {
        var result = psbt
        let transaction = try psbt.unsignedTransaction()
        var plans: [InputPlan?] = []
        var spentOutputs: [TxOut]? = []
        for index in psbt.inputs.indices {
            let plan = try InputPlan(psbt: psbt, transaction: transaction, index: index)
            plans.append(plan)
            if let utxo = plan?.utxo { spentOutputs?.append(utxo) } else { spentOutputs = nil }
        }
        var cache = SighashCache(transaction, spentOutputs: spentOutputs)
        var signed: [Int] = []
        var skipped: [Int: String] = [:]
        // First pass: find the keys and refuse before anything is signed.
        var work: [(Int, InputPlan, [SigningKey])] = []
        for (index, plan) in plans.enumerated() {
            if let approved, !approved.contains(index) {
                skipped[index] = "not approved by the review"
                continue
            }
            guard let plan else {
                skipped[index] = psbt.inputs[index].isFinalized ? "already finalized" : "no UTXO and no key of ours"
                if !psbt.inputs[index].isFinalized, try hasOurKey(psbt.inputs[index], provider) {
                    throw .missingUTXO(input: index)
                }
                continue
            }
            let keys = try plan.signingKeys(provider)
            guard !keys.isEmpty else {
                skipped[index] = "no key of this seed"
                continue
            }
            try check(plan, index: index, outputCount: transaction.outputs.count)
            work.append((index, plan, keys))
        }
        let commitOnly = AntiExfilPSBT.isCommitRound(psbt)  // anti-exfil round 1: no signature at all
        for (index, plan, keys) in work {
            for key in keys {
                try plan.sign(
                    with: key, into: &result.inputs[index].map, cache: &cache, grindLowR: options.grindLowR,
                    commitOnly: commitOnly)
            }
            signed.append(index)
        }
        result.canonicalize()
        return SigningReport(psbt: result, signedInputs: signed, skippedInputs: skipped)
    }

    /// The policy checks of an input this seed will sign.
    private func check(_ plan: InputPlan, index: Int, outputCount: Int) throws(PSBTError) {
        let type = plan.sighashType
        // Legacy SIGHASH_SINGLE without an output at the input's index signs the constant 1: a signature valid for
        // any transaction spending that coin. Never signed, whatever the options.
        if type.rawValue & 0x1f == 3, index >= outputCount {
            throw .signerCheckFailed(
                input: index, reason: "SIGHASH_SINGLE without an output at the input's index is never signed")
        }
        if plan.kind == .taproot {
            guard type.rawValue == 0 || type.rawValue == 1 || options.allowNonDefaultSighash else {
                throw .nonStandardSighash(type.rawValue, input: index)
            }
            guard type.isValidForTaproot else { throw .nonStandardSighash(type.rawValue, input: index) }
        } else {
            guard type.rawValue == 1 || options.allowNonDefaultSighash else {
                throw .nonStandardSighash(type.rawValue, input: index)
            }
        }
        if plan.kind == .segwitV0, !plan.hasPreviousTransaction, !options.allowMissingPreviousTransaction {
            throw .signerCheckFailed(
                input: index,
                reason: "segwit v0 input without its previous transaction (non_witness_utxo): its amount cannot be "
                    + "verified (fee attack); allow explicitly to sign anyway")
        }
    }

    /// Whether `provider` holds a key the input's derivations name (to tell "not ours" from "ours but incomplete").
    private func hasOurKey(_ input: PSBTInput, _ provider: some KeyProvider) throws(PSBTError) -> Bool {
        for (key, origin) in input.bip32Derivations
        where (try? provider.privateKey(for: .bip32(publicKey: key, origin: origin))) != nil {
            return true
        }
        for derivation in input.tapBIP32Derivations
        where (try? provider.privateKey(for: .taprootBIP32(key: derivation.key, origin: derivation.origin))) != nil {
            return true
        }
        return false
    }
}
