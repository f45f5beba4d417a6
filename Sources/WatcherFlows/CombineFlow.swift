import Bitcoin
import Chance
import Foundation
import SilentPayments
import Watcher

/// What `combine` made: the BIP174 Combiner over several signers' PSBTs (with the copy this watcher kept), or the
/// combination of Chance `multisig:` texts of one transaction.
public struct CombineReport: Sendable {
    /// The combined PSBT (nil for `multisig:` texts: `json` makes the text's PSBT).
    public let psbt: PSBT?
    public let txid: Txid
    /// Signatures (or final scripts) per input.
    public let signatures: [Int]
    /// How many PSBTs or texts were given.
    public let count: Int
    /// Whether the copy this watcher kept was merged in.
    public let usedKeptPSBT: Bool
    /// The combined `multisig:` text, when texts were combined.
    public let chance: ChanceMultisig?

    /// Combines `psbts` (at least one) and the copy this watcher kept in `archive`.
    ///
    /// - Throws: `PSBTFlowError.differentTransactions`; `StoreError` or `PSBTError` from the kept copy;
    ///   `SilentPaymentError` for a silent-payment share or script that does not check out.
    public init(psbts: [PSBT], archive: PSBTArchive) throws {
        let (result, usedArchive) = try archive.completed(try Self.combined(psbts))
        // Silent payments (BIP375): every share's proof and every script already set checked (exit 4 on a mismatch);
        // shares may still be missing (the next signer adds them and computes the scripts).
        if BIP375.hasSilentPayments(result) {
            try BIP375.validate(result)
            try BIP375.checkInputKeys(result)
        }
        psbt = result
        txid = try result.unsignedTxid()
        signatures = result.inputs.map { $0.map.entries.filter(Self.isSignature).count }
        count = psbts.count
        usedKeptPSBT = usedArchive
        chance = nil
    }

    /// Combines Chance `multisig:` texts of one transaction (every key position of every text, each signature
    /// checked against its key and the transaction).
    ///
    /// - Throws: `PSBTFlowError.chance` with the reason they do not combine.
    public init(texts: [ChanceMultisig]) throws {
        guard let first = texts.first else { throw PSBTFlowError.differentTransactions }
        let combined: ChanceMultisig
        do { combined = try first.combined(with: Array(texts.dropFirst())) } catch {
            throw PSBTFlowError.chance(error.description)
        }
        psbt = nil
        txid = combined.transaction.txid
        signatures = Array(repeating: combined.signatures.count, count: combined.transaction.inputs.count)
        count = texts.count
        usedKeptPSBT = false
        chance = combined
    }

    /// The BIP174 Combiner over `psbts`.
    ///
    /// - Throws: `PSBTFlowError.differentTransactions` for PSBTs of different transactions (or none).
    static func combined(_ psbts: [PSBT]) throws -> PSBT {
        guard let first = psbts.first else { throw PSBTFlowError.differentTransactions }
        guard psbts.count > 1 else { return first }
        do { return try first.combined(with: Array(psbts.dropFirst())) } catch .combineMismatch {
            throw PSBTFlowError.differentTransactions
        }
    }

    /// Whether a PSBT input entry is a signature or a final script.
    static func isSignature(_ entry: PSBTEntry) -> Bool {
        [
            PSBTKeyType.Input.partialSig, PSBTKeyType.Input.tapKeySig, PSBTKeyType.Input.tapScriptSig,
            PSBTKeyType.Input.finalScriptWitness, PSBTKeyType.Input.finalScriptSig,
        ].contains(entry.keyType)
    }

    /// The stderr lines.
    public var lines: [String] {
        guard let chance else {
            return [
                "combined \(count) PSBT(s)" + (usedKeptPSBT ? " with the one this watcher created" : ""),
                "signatures per input: \(signatures.map(String.init).joined(separator: ", "))",
            ]
        }
        return [
            "combined \(count) multisig: text(s): key positions "
                + chance.signedPositions.map(String.init).joined(separator: ", ")
                + (chance.isComplete
                    ? " (complete: \(chance.threshold) of \(chance.keys.count))"
                    : " (\(chance.signatures.count) of the \(chance.threshold) needed)")
        ]
    }

    /// `combine --json`, with the files written.
    ///
    /// - Throws: `ChanceMultisigError` when the combined text has no PSBT form.
    public func json(written: [String]) throws -> CombineJSON {
        let psbt = try self.psbt ?? chance?.psbt()
        var object = CombineJSON(
            txid: txid.hexString, psbt: psbt?.base64String ?? "", written: written, signatures: signatures,
            usedKeptPsbt: usedKeptPSBT)
        object.multisigText = chance?.description
        object.complete = chance?.isComplete
        return object
    }
}
