import BitcoinCrypto

extension PSBT {
    /// The BIP174 Finalizer: builds the final scriptSig and witness of every input it can (P2PK, P2PKH, P2SH,
    /// P2WPKH, P2SH-P2WPKH, P2WSH and P2SH-P2WSH with multisig, P2PK or P2PKH scripts, P2TR key path and P2TR script
    /// path with `pk` and `multi_a` leaves), clears their signing fields, and orders the maps as Bitcoin Core does.
    ///
    /// - Returns: whether every input is now finalized.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#input-finalizer
    @discardableResult
    public mutating func finalize() -> Bool {
        var complete = true
        // The outpoints once: each input's own lookup would assemble the whole transaction again (O(n²)).
        let outpoints = version >= 2 ? nil : (try? unsignedTransaction())?.inputs.map(\.previousOutput)
        for index in inputs.indices where !inputs[index].isFinalized {
            do {
                try finalizeInput(index, outpoint: try outpoints.map { $0[index] } ?? outpoint(of: index))
            } catch { complete = false }
        }
        canonicalize()
        return complete
    }

    /// Finalizes input `index`.
    ///
    /// - Throws: `PSBTError.missingUTXO`, or `.cannotFinalize` naming what is missing (signatures, scripts).
    public mutating func finalizeInput(_ index: Int) throws(PSBTError) {
        try finalizeInput(index, outpoint: outpoint(of: index))
    }

    private mutating func finalizeInput(_ index: Int, outpoint: OutPoint) throws(PSBTError) {
        let input = inputs[index]
        guard let utxo = input.spentOutput(vout: outpoint.vout) else { throw .missingUTXO(input: index) }
        let solved = try PSBTFinalizer(input: input, index: index).solve(utxo.scriptPubKey)
        var map = input.map
        map.entries.removeAll { PSBTCanonicalOrder.inputSigningFields.contains($0.keyType) }
        if !solved.scriptSig.isEmpty {
            map.set(PSBTKeyType.Input.finalScriptSig, value: Script(solved.scriptSig.map { .push($0) }).bytes)
        }
        if let witness = solved.witness {
            map.set(PSBTKeyType.Input.finalScriptWitness, value: PSBTInput.encodeWitness(witness))
        }
        inputs[index].map = map
    }

    /// The BIP174 Transaction Extractor: the signed network transaction of a fully finalized PSBT.
    ///
    /// - Throws: `PSBTError.notFinalized` naming the first input without final scripts.
    public func extractTransaction() throws(PSBTError) -> Transaction {
        var transaction = try unsignedTransaction()
        for (index, input) in inputs.enumerated() {
            guard input.isFinalized else { throw .notFinalized(input: index) }
            transaction.inputs[index].scriptSig = input.finalScriptSig ?? .empty
            transaction.inputs[index].witness = Witness(input.finalScriptWitness ?? [])
        }
        return transaction
    }

    /// The outpoint input `index` spends (v0: from the unsigned transaction; v2: from its own fields).
    public func outpoint(of index: Int) throws(PSBTError) -> OutPoint {
        if version >= 2 {
            guard let outpoint = inputs[index].previousOutpoint else {
                throw .missingRequiredField(field: "PSBT_IN_PREVIOUS_TXID", location: .input(index))
            }
            return outpoint
        }
        return try unsignedTransaction().inputs[index].previousOutput
    }
}

/// Builds the satisfying scriptSig items and witness of one input from its partial signatures and scripts.
package struct PSBTFinalizer {
    let input: PSBTInput
    let index: Int

    /// scriptSig push items and, for segwit, the witness stack.
    struct Solution {
        var scriptSig: [[UInt8]] = []
        var witness: [[UInt8]]?
    }

    private func fail(_ reason: String) -> PSBTError { .cannotFinalize(input: index, reason: reason) }

    func solve(_ scriptPubKey: Script) throws(PSBTError) -> Solution {
        switch scriptPubKey.template {
        case .p2sh(let hash):
            guard let redeem = input.redeemScript else { throw fail("P2SH input without a redeem script") }
            guard ScriptHash(redeem) == hash else { throw fail("the redeem script does not match the P2SH output") }
            switch redeem.template {
            case .p2wpkh, .p2wsh:
                var solution = try solveWitness(redeem)
                solution.scriptSig = [redeem.bytes]
                return solution
            default:
                return Solution(scriptSig: try satisfy(redeem) + [redeem.bytes])
            }
        case .p2wpkh, .p2wsh, .p2tr:
            return try solveWitness(scriptPubKey)
        case .witnessProgram:
            throw fail("unknown witness version")
        default:
            return Solution(scriptSig: try satisfy(scriptPubKey))
        }
    }

    private func solveWitness(_ program: Script) throws(PSBTError) -> Solution {
        switch program.template {
        case .p2wpkh(let hash):
            let (key, signature) = try signature(forKeyHash: hash.bytes)
            return Solution(witness: [signature, key])
        case .p2wsh(let hash):
            guard let witnessScript = input.witnessScript else { throw fail("P2WSH input without a witness script") }
            guard WitnessScriptHash(witnessScript) == hash else {
                throw fail("the witness script does not match the P2WSH program")
            }
            return Solution(witness: try satisfy(witnessScript) + [witnessScript.bytes])
        case .p2tr:
            if let signature = input.tapKeySignature { return Solution(witness: [signature]) }
            return Solution(witness: try solveTapscript())
        default:
            throw fail("unsupported witness program")
        }
    }

    /// The (key, signature) of a partial signature whose key hashes to `hash`.
    private func signature(forKeyHash hash: [UInt8]) throws(PSBTError) -> ([UInt8], [UInt8]) {
        for entry in input.map.entries(PSBTKeyType.Input.partialSig) where Hash160.hash(entry.keyData) == hash {
            return (entry.keyData, entry.value)
        }
        throw fail("no signature for the key of this output")
    }

    /// Satisfies a legacy or segwit v0 script: P2PK, P2PKH, or m-of-n CHECKMULTISIG (signatures in key order).
    private func satisfy(_ script: Script) throws(PSBTError) -> [[UInt8]] {
        switch script.template {
        case .p2pkh(let hash):
            let (key, signature) = try signature(forKeyHash: hash.bytes)
            return [signature, key]
        case .p2pk:
            guard let keyBytes = (try? script.operations())?.first?.data,
                let entry = input.map.entry(PSBTKeyType.Input.partialSig, keyData: keyBytes)
            else { throw fail("no signature for the P2PK key") }
            return [entry.value]
        case .multisig(let threshold, _):
            guard let operations = try? script.operations() else { throw fail("unparseable multisig script") }
            let keys = operations.dropFirst().dropLast(2).compactMap(\.data)
            var signatures: [[UInt8]] = []
            for key in keys where signatures.count < threshold {
                if let entry = input.map.entry(PSBTKeyType.Input.partialSig, keyData: key) {
                    signatures.append(entry.value)
                }
            }
            guard signatures.count == threshold else {
                throw fail("\(signatures.count) of the \(threshold) signatures this multisig needs")
            }
            return [[]] + signatures
        default:
            throw fail("unsupported script")
        }
    }

    /// The smallest satisfiable taproot script path among the input's leaf scripts: `pk` and `multi_a` leaves.
    private func solveTapscript() throws(PSBTError) -> [[UInt8]] {
        var best: [[UInt8]]?
        for leaf in input.tapLeafScripts where leaf.leafVersion & 0xFE == TapLeaf.tapscriptVersion {
            let leafHash = TapLeaf(tapscript: leaf.script).hash.bytes
            guard let items = satisfyTapscript(leaf.script, leafHash: leafHash) else { continue }
            let witness = items + [leaf.script.bytes, leaf.controlBlock]
            if best == nil || witness.reduce(0, { $0 + $1.count }) < best.map({ $0.reduce(0) { $0 + $1.count } }) ?? 0 {
                best = witness
            }
        }
        guard let best else { throw fail("no taproot key signature and no satisfiable script leaf") }
        return best
    }

    private func tapSignature(_ key: [UInt8], leafHash: [UInt8]) -> [UInt8]? {
        input.map.entry(PSBTKeyType.Input.tapScriptSig, keyData: key + leafHash)?.value
    }

    /// Witness items for `<key> OP_CHECKSIG` or `<k1> OP_CHECKSIG <k2> OP_CHECKSIGADD … <m> OP_NUMEQUAL`.
    private func satisfyTapscript(_ script: Script, leafHash: [UInt8]) -> [[UInt8]]? {
        guard let operations = try? script.operations() else { return nil }
        if operations.count == 2, let key = operations[0].data, key.count == 32, operations[1].opcode == .checkSig {
            return tapSignature(key, leafHash: leafHash).map { [$0] }
        }
        guard operations.count >= 4, operations.last?.opcode == .numEqual,
            let threshold = operations[operations.count - 2].opcode.smallIntegerValue
                ?? operations[operations.count - 2].data.flatMap(Self.scriptNumber)
        else { return nil }
        var keys: [[UInt8]] = []
        var position = 0
        while position + 1 < operations.count - 2 {
            guard let key = operations[position].data, key.count == 32 else { return nil }
            let expected: Opcode = position == 0 ? .checkSig : .checkSigAdd
            guard operations[position + 1].opcode == expected else { return nil }
            keys.append(key)
            position += 2
        }
        guard position == operations.count - 2, threshold >= 1, threshold <= keys.count else { return nil }
        var chosen = 0
        var items: [[UInt8]] = []
        for key in keys {
            if chosen < threshold, let signature = tapSignature(key, leafHash: leafHash) {
                items.append(signature)
                chosen += 1
            } else {
                items.append([])
            }
        }
        guard chosen == threshold else { return nil }
        return items.reversed()
    }

    /// A small minimally encoded script number (for thresholds above 16).
    package static func scriptNumber(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 4 else { return nil }
        var value = 0
        for (i, byte) in bytes.enumerated() { value |= Int(byte) << (8 * i) }
        if bytes[bytes.count - 1] & 0x80 != 0 { return nil }
        return value
    }
}
