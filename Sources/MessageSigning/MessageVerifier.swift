import Bitcoin
import BitcoinCrypto

/// Checks message signatures: BIP322 (simple, full, proof of funds) and legacy `signmessage` (docs/signer.md,
/// "Message signing").
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0322.mediawiki#verification-process
public enum MessageVerifier {
    /// Checks `signature` of `message` for `address`.
    public static func verify(message: some Collection<UInt8>, address: Address, signature: MessageSignature)
        -> MessageVerification
    {
        let bytes = Array(message)
        let toSpend = BIP322.toSpend(message: bytes, challenge: address.scriptPubKey)
        switch signature {
        case .legacy(let legacy):
            if let reason = LegacyMessage.check(legacy, message: bytes, address: address) { return .invalid(reason) }
            return .valid(lockTime: 0, sequence: 0)
        case .simple(let witness):
            var toSign = BIP322.toSign(toSpend: toSpend)
            toSign.inputs[0].witness = witness
            return check(toSign, spent: [toSpend.outputs[0]])
        case .full(let toSign):
            if let reason = shapeProblem(toSign, toSpend: toSpend) { return .invalid(reason) }
            guard toSign.inputs.count == 1 else {
                return .invalid("a full signature with \(toSign.inputs.count) inputs (more inputs need the pof form)")
            }
            return check(toSign, spent: [toSpend.outputs[0]])
        case .proofOfFunds(let psbt):
            return verifyProofOfFunds(psbt, toSpend: toSpend)
        }
    }

    /// Checks `signature` text (see `MessageSignature.init(string:)`).
    public static func verify(message: some Collection<UInt8>, address: Address, signature text: String)
        -> MessageVerification
    {
        do {
            return verify(message: message, address: address, signature: try MessageSignature(string: text))
        } catch { return .invalid(error.description) }
    }

    private static func shapeProblem(_ toSign: Transaction, toSpend: Transaction) -> String? {
        guard let first = toSign.inputs.first else { return "to_sign has no input" }
        guard first.previousOutput == OutPoint(txid: toSpend.txid, vout: 0) else {
            return "invalid signature: to_sign does not spend to_spend of this message and address"
        }
        guard toSign.outputs.count == 1, toSign.outputs[0].value == .zero,
            toSign.outputs[0].scriptPubKey.bytes == [0x6A]
        else { return "to_sign must have exactly one output of 0 paying OP_RETURN" }
        return nil
    }

    private static func check(_ toSign: Transaction, spent: [TxOut]) -> MessageVerification {
        var verifier = MessageScriptVerifier(transaction: toSign, spentOutputs: spent)
        for index in toSign.inputs.indices {
            switch verifier.verify(input: index) {
            case .valid: continue
            case .invalid(let reason): return .invalid(index == 0 ? reason : "input \(index): \(reason)")
            case .inconclusive(let reason): return .inconclusive(index == 0 ? reason : "input \(index): \(reason)")
            }
        }
        // Upgradeable rules: checked after the required ones.
        guard toSign.version == 0 || toSign.version == 2 else {
            return .inconclusive("to_sign has version \(toSign.version), not 0 or 2")
        }
        return .valid(lockTime: toSign.lockTime.rawValue, sequence: toSign.inputs[0].sequence.rawValue)
    }

    private static func verifyProofOfFunds(_ psbt: PSBT, toSpend: Transaction) -> MessageVerification {
        var toSign: Transaction
        do { toSign = try psbt.unsignedTransaction() } catch { return .invalid("the pof PSBT: \(error)") }
        guard toSign.inputs.count == psbt.inputs.count else { return .invalid("the pof PSBT's input count") }
        if let reason = shapeProblem(toSign, toSpend: toSpend) { return .invalid(reason) }
        var spent: [TxOut] = []
        for (index, input) in psbt.inputs.enumerated() {
            guard input.isFinalized else { return .invalid("input \(index) of the pof PSBT is not finalized") }
            toSign.inputs[index].scriptSig = input.finalScriptSig ?? .empty
            toSign.inputs[index].witness = Witness(input.finalScriptWitness ?? [])
            if index == 0 {
                spent.append(toSpend.outputs[0])
                continue
            }
            let outpoint = toSign.inputs[index].previousOutput
            if let utxo = input.witnessUTXO {
                spent.append(utxo)
                continue
            }
            let previous =
                input.nonWitnessUTXO
                ?? psbt.inputs[..<index].lazy.compactMap(\.nonWitnessUTXO).first { $0.txid == outpoint.txid }
            guard let previous, previous.txid == outpoint.txid, Int(outpoint.vout) < previous.outputs.count else {
                return .invalid("input \(index) of the pof PSBT has no UTXO for \(outpoint)")
            }
            spent.append(previous.outputs[Int(outpoint.vout)])
        }
        return check(toSign, spent: spent)
    }
}
