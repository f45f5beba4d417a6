import Bitcoin
import Descriptors
import Foundation
import SilentPayments
import Watcher

/// The BIP174 Finalizer as the watcher runs it: the PSBT is first combined with the copy this watcher kept, then
/// each input gets its final scriptSig and witness from the finalizer that fits it.
///
/// The choice of finalizer, per input: an input of one of the wallet's miniscript policies (`wsh` or `sh(wsh)`) is
/// satisfied by that policy with the transaction's nSequence and nLockTime; any other input by the generic
/// finalizer (single key, multisig, taproot key and `multi_a` leaves); a taproot leaf the generic finalizer does not
/// know, by the miniscript leaves of any stored wallet's `tr()` tree (docs/miniscript.md, "Tapscript").
public struct PSBTFinalizer: Sendable {
    /// The wallet's descriptors (their miniscript policies decide).
    public let descriptors: [Descriptor]
    /// The descriptors of the stored wallets that have miniscript leaves in a `tr()` tree.
    public let tapMiniscripts: [Descriptor]
    let archive: PSBTArchive?

    /// A finalizer for the wallet `wallet` (nil: none chosen) of `store`, combining with its kept PSBTs.
    public init(store: Store, wallet: WalletRecord?) {
        descriptors = wallet.flatMap { try? Account(record: $0) }.map(\.descriptors) ?? []
        let wallets = (try? store.wallets()) ?? []
        tapMiniscripts = wallets.flatMap { $0.descriptors.values }.compactMap { try? Descriptor(string: $0) }
            .filter { !$0.tapLeafMiniscripts.isEmpty }
        archive = PSBTArchive(store: store)
    }

    /// A finalizer with these descriptors and no kept PSBTs.
    public init(descriptors: [Descriptor], tapMiniscripts: [Descriptor] = []) {
        self.descriptors = descriptors
        self.tapMiniscripts = tapMiniscripts
        archive = nil
    }

    /// `psbt` completed from the kept copy and finalized (canonical: the partial data of finalized inputs dropped).
    ///
    /// - Throws: `SilentPaymentError` when a silent-payment output's script or share does not check out,
    ///   `PSBTFlowError.notSigned` when no input carries a signature, `.cannotFinalize` naming each input
    ///   that lacks signatures or data, or whose policy path needs a timelock the transaction does not meet;
    ///   `StoreError` or `PSBTError` from combining with the kept copy.
    public func finalize(_ psbt: PSBT) throws -> PSBT {
        var result = try archive?.completed(psbt).psbt ?? psbt
        // Silent payments (BIP375): every share's proof verified and every script recomputed before anything is
        // finalized or broadcast; a mismatch is a refusal (exit 4).
        try BIP375.verifyComplete(result)
        // Anti-exfil: every signature checked against the signer's commitment and this watcher's entropy (exit 4).
        if let archive { _ = try AntiExfilKeeper(directory: archive.directory).verify(result) }
        let unsigned = result.inputs.allSatisfy { input in
            !input.isFinalized && input.partialSignatures.isEmpty && input.tapKeySignature == nil
                && input.tapScriptSignatures.isEmpty
        }
        if unsigned, !result.inputs.isEmpty { throw PSBTFlowError.notSigned }
        var problems: [String] = []
        for index in result.inputs.indices where !result.inputs[index].isFinalized {
            if let problem = finalizeInput(index, of: &result) { problems.append("input \(index): \(problem)") }
        }
        result.canonicalize()
        guard problems.isEmpty else { throw PSBTFlowError.cannotFinalize(problems) }
        return result
    }

    /// Finalizes one input with the finalizer that fits it; the reason when it cannot.
    func finalizeInput(_ index: Int, of psbt: inout PSBT) -> String? {
        let policies = descriptors.filter { $0.miniscript != nil }
        if !policies.isEmpty, psbt.miniscriptMatch(ofInput: index, descriptors: policies) != nil {
            do { try psbt.finalizeMiniscriptInput(index, descriptors: policies) } catch { return "\(error)" }
            return nil
        }
        do { try psbt.finalizeInput(index) } catch {
            guard !psbt.inputs[index].tapLeafScripts.isEmpty, !tapMiniscripts.isEmpty else { return "\(error)" }
            do { try psbt.finalizeTapMiniscriptInput(index, descriptors: tapMiniscripts) } catch let tapError {
                return "\(tapError)"
            }
        }
        return nil
    }
}

/// What `finalize` made.
public struct FinalizeReport: Sendable {
    public let psbt: PSBT
    public let transaction: Transaction

    /// Finalizes `psbt` with `finalizer` and extracts the signed transaction.
    ///
    /// - Throws: what `PSBTFinalizer.finalize` throws; `PSBTError` from extracting.
    public init(_ psbt: PSBT, finalizer: PSBTFinalizer) throws {
        self.psbt = try finalizer.finalize(psbt)
        transaction = try self.psbt.extractTransaction()
    }

    /// The stderr line.
    public var line: String { "finalized \(transaction.txid.hexString) (\(transaction.inputs.count) input(s))" }

    /// `finalize --json`.
    public func json(written: [String]) -> FinalizeJSON {
        FinalizeJSON(
            txid: transaction.txid.hexString, psbt: psbt.base64String,
            transaction: transaction.serialized().hexString, written: written)
    }
}
