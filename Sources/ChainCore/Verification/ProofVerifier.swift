import Bitcoin

/// Checks the confirmations a server claims: each transaction's merkle proof against its block header, and each
/// header's proof of work and link to its predecessor.
///
/// The caller fetches; this only judges.
public struct ProofVerifier: Sendable {
    /// The network whose proof-of-work limit applies.
    public let network: Network

    public init(network: Network) { self.network = network }

    /// Verifies the headers at `height` and `height - 1` (when height > 0) and returns the block at `height`.
    ///
    /// - Throws: `ChainError.verificationFailed`.
    public func verifyHeader(_ header: BlockHeader, previous: BlockHeader?, height: Int) throws(ChainError)
        -> BlockHeader
    {
        try header.verifyProofOfWork(network: network, height: height)
        if let previous {
            try previous.verifyProofOfWork(network: network, height: height - 1)
            try header.verifyLink(to: previous, height: height)
        } else if height > 0 {
            throw .verificationFailed("no header before height \(height) to link to")
        }
        return header
    }

    /// Checks that a transaction, given by its raw bytes, is the one the server named.
    ///
    /// - Throws: `ChainError.verificationFailed` when its txid differs, or it does not parse.
    public func verifyTransaction(raw: [UInt8], claimed: Txid) throws(ChainError) -> Transaction {
        // The txid hashed from the bytes sent, not from the transaction serialized again.
        guard let (transaction, txid) = try? Transaction.parsingTxid(raw) else {
            throw .verificationFailed("transaction \(claimed) from the server does not parse")
        }
        guard txid == claimed else {
            throw .verificationFailed("the server sent transaction \(txid) when asked for \(claimed)")
        }
        return transaction
    }

    /// Checks that every entry in a script's history pays the script or spends an output of an earlier entry that pays
    /// it (what an Electrum or Esplora history is by definition).
    ///
    /// - Throws: `ChainError.verificationFailed` naming the unrelated transaction.
    public func verifyHistory(
        script: Script, entries: [HistoryEntry], transactions: (Txid) -> Transaction?
    ) throws(ChainError) {
        var funding: Set<OutPoint> = []
        // Each entry whose transaction is known, in order, with whether it pays the script (found once, with the
        // outputs it funds).
        var found: [(entry: HistoryEntry, transaction: Transaction, pays: Bool)] = []
        found.reserveCapacity(entries.count)
        for entry in entries {
            guard let tx = transactions(entry.txid) else { continue }
            var pays = false
            for (vout, output) in tx.outputs.enumerated() where output.scriptPubKey == script {
                pays = true
                funding.insert(OutPoint(txid: entry.txid, vout: UInt32(vout)))
            }
            found.append((entry, tx, pays))
        }
        for (entry, tx, pays) in found where !pays {
            guard tx.inputs.contains(where: { funding.contains($0.previousOutput) }) else {
                throw .verificationFailed(
                    "history entry \(entry.txid) neither pays nor spends the script \(script.hexString)")
            }
        }
    }
}
