import Bitcoin

/// Estimates the virtual size of a PSBT's transaction once finalized: finalized inputs count as they are, the others by
/// their script type with worst-case (72-byte) ECDSA signatures.
enum VSizeEstimator {
    /// Weight of one input's non-witness part (outpoint, scriptSig with its length, sequence) and witness part.
    static func inputWeight(_ input: PSBTInput, utxo: TxOut?) -> (base: Int, witness: Int) {
        if input.isFinalized {
            let scriptSig = input.finalScriptSig?.bytes.count ?? 0
            let witness = input.finalScriptWitness.map(witnessSize) ?? 0
            return (40 + ByteWriter.compactSizeLength(scriptSig) + scriptSig, witness)
        }
        let signature = 73  // push length + 71-72 byte DER with sighash byte, worst case
        guard let utxo else { return (41 + 107, 0) }
        var inner = utxo.scriptPubKey
        var scriptSig = 0
        if case .p2sh = inner.template, let redeem = input.redeemScript {
            scriptSig = ByteWriter.compactSizeLength(redeem.bytes.count) + redeem.bytes.count
            inner = redeem
        }
        switch inner.template {
        case .p2wpkh:
            return (40 + ByteWriter.compactSizeLength(scriptSig) + scriptSig, 1 + signature + 34)
        case .p2wsh:
            guard let script = input.witnessScript else { return (41 + scriptSig, 1 + 1 + 2 * signature + 105) }
            let items = satisfactionSize(script, signature: signature)
            return (
                40 + ByteWriter.compactSizeLength(scriptSig) + scriptSig,
                1 + items + ByteWriter.compactSizeLength(script.bytes.count) + script.bytes.count
            )
        case .p2tr:
            let sighashByte = (input.sighashType ?? 0) == 0 ? 0 : 1
            // With leaf scripts and an internal key no signer claims (a NUMS key such as BIP341's H), only the
            // script path can spend: the cheapest leaf counts.
            let internalSigns = input.tapBIP32Derivations.contains { $0.key == input.tapInternalKey }
            if !input.tapLeafScripts.isEmpty, !internalSigns {
                let sizes = input.tapLeafScripts.map { leaf in
                    tapscriptSatisfactionSize(leaf.script, signature: 1 + 64 + sighashByte)
                        + ByteWriter.compactSizeLength(leaf.script.bytes.count) + leaf.script.bytes.count
                        + ByteWriter.compactSizeLength(leaf.controlBlock.count) + leaf.controlBlock.count
                }
                return (41, sizes.min() ?? (1 + 1 + 64 + sighashByte))
            }
            return (41, 1 + 1 + 64 + sighashByte)
        case .p2pkh:
            return (40 + 1 + signature + 34 + scriptSig, 0)
        default:
            let items = satisfactionSize(inner, signature: signature)
            let total = items + scriptSig
            return (40 + ByteWriter.compactSizeLength(total) + total, 0)
        }
    }

    /// Bytes of the pushes that satisfy a multisig or P2PK script.
    static func satisfactionSize(_ script: Script, signature: Int) -> Int {
        switch script.template {
        case .multisig(let threshold, _): 1 + threshold * signature
        case .p2pk: signature
        default: signature + 34
        }
    }

    /// The item count and items that satisfy a tapscript leaf: `multi_a` takes `k` signatures and an empty item for
    /// each other key; anything else counts as one signature.
    static func tapscriptSatisfactionSize(_ script: Script, signature: Int) -> Int {
        let operations = (try? script.operations()) ?? []
        let keys = operations.filter { $0.data?.count == 32 }.count
        if keys > 1, operations.last?.opcode == .numEqual, operations.count >= 2 {
            let thresholdOperation = operations[operations.count - 2]
            let threshold = thresholdOperation.opcode.smallIntegerValue ?? thresholdOperation.data.map { _ in keys }
            if let threshold, threshold <= keys {
                return ByteWriter.compactSizeLength(keys + 2) + threshold * signature + (keys - threshold)
            }
        }
        return 1 + signature
    }

    static func witnessSize(_ items: [[UInt8]]) -> Int {
        ByteWriter.compactSizeLength(items.count)
            + items.reduce(0) { $0 + ByteWriter.compactSizeLength($1.count) + $1.count }
    }

    /// The estimated virtual size of `transaction` with `inputs` finalized.
    ///
    /// Inputs flagged in `minimal` count at their smallest possible size (41 bytes, an empty witness).
    static func vsize(transaction: Transaction, inputs: [PSBTInput], utxos: [TxOut?], minimal: [Bool] = []) -> Int {
        var base =
            4 + 4 + ByteWriter.compactSizeLength(inputs.count) + ByteWriter.compactSizeLength(transaction.outputs.count)
        for output in transaction.outputs {
            base += 8 + ByteWriter.compactSizeLength(output.scriptPubKey.bytes.count) + output.scriptPubKey.bytes.count
        }
        var witness = 0
        var anyWitness = false
        for (index, input) in inputs.enumerated() {
            let weight =
                index < minimal.count && minimal[index]
                ? (base: 41, witness: 0) : inputWeight(input, utxo: utxos[index])
            base += weight.base
            if weight.witness > 0 { anyWitness = true }
            witness += max(weight.witness, 1)  // an input without witness still has an empty stack (one byte)
        }
        let weight = base * 4 + (anyWitness ? 2 + witness : 0)
        return (weight + 3) / 4
    }
}
