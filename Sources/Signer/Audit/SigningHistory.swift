import Bitcoin

/// What the signing journal says about a PSBT about to be reviewed: its own signed answer fed back, or a request
/// signed before (issue 27: "this is the signed answer you wrote on …", "already signed on … (journal entry N)").
///
/// Only entries whose HMAC the journal key proves are consulted, so a forged line cannot make a new request look
/// like an old one; a match is by the unsigned transaction's txid.
public enum SigningHistory: Sendable, Equatable {
    /// The PSBT carries the signatures this vault made then, on every input it signed: it is the answer, not a
    /// request.
    case signedAnswer(AuditEntry)
    /// The same transaction was signed before; the PSBT does not carry that signature (it is the request again).
    case signedBefore(AuditEntry)

    /// The journal's finding for `psbt`, nil when the journal has no entry for its transaction.
    ///
    /// - Parameters:
    ///   - psbt: the PSBT as read.
    ///   - entries: the journal's entries (`AuditLog.entries()`), oldest first.
    ///   - key: the journal key; entries it does not authenticate are skipped.
    /// - Returns: the finding of the last matching entry.
    public static func finding(for psbt: PSBT, entries: [AuditEntry], key: AuditKey) -> SigningHistory? {
        guard let txid = try? psbt.unsignedTxid().hexString else { return nil }
        let matching = entries.filter { entry in
            entry.ethereum == nil && entry.summary.txid == txid && entry.keyed && entry.hashIsValid(key: key)
        }
        guard let last = matching.last else { return nil }
        let signedInputs = last.summary.signedInputs
        let carriesSignatures =
            !signedInputs.isEmpty
            && signedInputs.allSatisfy { index in
                guard psbt.inputs.indices.contains(index) else { return false }
                let input = psbt.inputs[index]
                return input.isFinalized || !input.partialSignatures.isEmpty || input.tapKeySignature != nil
                    || !input.tapScriptSignatures.isEmpty
            }
        return carriesSignatures ? .signedAnswer(last) : .signedBefore(last)
    }

    /// The entry found.
    public var entry: AuditEntry {
        switch self {
        case .signedAnswer(let entry), .signedBefore(let entry): entry
        }
    }
}
