import Bitcoin
import BitcoinCrypto

/// A taproot leaf of a PSBT input that is a miniscript leaf of a `tr()` descriptor at one child index of one branch
/// (docs/miniscript.md, "Tapscript").
public struct TapMiniscriptLeafMatch: Sendable {
    /// The position of the descriptor in the list searched.
    public let descriptorIndex: Int
    /// The leaf's miniscript (tapscript context).
    public let miniscript: Miniscript
    /// The branch of a multipath descriptor (0 for a single-path one).
    public let path: Int
    /// The child index.
    public let index: UInt32
    /// The leaf script (equal to the input's).
    public let script: Script
    /// The leaf's control block, as the input carries it (PSBT_IN_TAP_LEAF_SCRIPT).
    public let controlBlock: [UInt8]
    /// The leaf hash (BIP341 TapLeaf of the script).
    public let leafHash: [UInt8]
}

extension PSBT {
    /// The input's taproot leaves that are miniscript leaves of one of `descriptors` at a child index one of the
    /// input's BIP371 derivations names, and whose descriptor gives the input's scriptPubKey there (when the input
    /// carries its UTXO).
    public func tapMiniscriptLeaves(ofInput input: Int, descriptors: [Descriptor]) -> [TapMiniscriptLeafMatch] {
        guard inputs.indices.contains(input) else { return [] }
        let psbtInput = inputs[input]
        let leaves = psbtInput.tapLeafScripts.filter { $0.leafVersion & 0xFE == TapLeaf.tapscriptVersion }
        guard !leaves.isEmpty else { return [] }
        let utxo = (try? outpoint(of: input)).flatMap { psbtInput.spentOutput(vout: $0.vout) }
        var indexes: [UInt32] = []
        for derivation in psbtInput.tapBIP32Derivations {
            guard let last = derivation.origin.path.components.last, !last.isHardened,
                !indexes.contains(last.rawValue)
            else { continue }
            indexes.append(last.rawValue)
        }
        var matches: [TapMiniscriptLeafMatch] = []
        for (number, descriptor) in descriptors.enumerated() {
            let miniscripts = descriptor.tapLeafMiniscripts
            guard !miniscripts.isEmpty else { continue }
            for index in indexes {
                for path in 0..<descriptor.multipathCount {
                    if let utxo, (try? descriptor.scriptPubKey(at: index, path: path)) != utxo.scriptPubKey {
                        continue
                    }
                    for miniscript in miniscripts {
                        guard let script = try? miniscript.script(at: index, path: path),
                            let leaf = leaves.first(where: { $0.script == script })
                        else { continue }
                        matches.append(
                            TapMiniscriptLeafMatch(
                                descriptorIndex: number, miniscript: miniscript, path: path, index: index,
                                script: script, controlBlock: leaf.controlBlock,
                                leafHash: TapLeaf(tapscript: script).hash.bytes))
                    }
                }
            }
            if !matches.isEmpty { return matches }
        }
        return matches
    }

    /// The Schnorr signatures input `input` holds for leaf `leafHash`, by 32-byte x-only key
    /// (PSBT_IN_TAP_SCRIPT_SIG).
    public func tapScriptSignatures(ofInput input: Int, leafHash: [UInt8]) -> [[UInt8]: [UInt8]] {
        var signatures: [[UInt8]: [UInt8]] = [:]
        for entry in inputs[input].map.entries(PSBTKeyType.Input.tapScriptSig)
        where entry.keyData.count == 64 && Array(entry.keyData.suffix(32)) == leafHash {
            signatures[Array(entry.keyData.prefix(32))] = entry.value
        }
        return signatures
    }

    /// Finalizes input `input`, a script-path spend of a miniscript leaf of a `tr()` descriptor among `descriptors`:
    /// of the leaves the signatures on hand satisfy with the transaction's nSequence and nLockTime, the one with the
    /// smallest witness; the witness is its non-malleable satisfaction, the leaf script and the control block
    /// (BIP341).
    ///
    /// - Throws: `PSBTError.cannotFinalize` naming why: no miniscript leaf of these descriptors; the signatures
    ///   satisfy no leaf; or they would, but a timelock is not met by the transaction (what the leaf needs, and what
    ///   the transaction has).
    public mutating func finalizeTapMiniscriptInput(_ input: Int, descriptors: [Descriptor]) throws(PSBTError) {
        let matches = tapMiniscriptLeaves(ofInput: input, descriptors: descriptors)
        guard !matches.isEmpty else {
            throw .cannotFinalize(input: input, reason: "no taproot leaf of the input is a miniscript of this wallet")
        }
        let transaction = try unsignedTransaction()
        let sequence = transaction.inputs[input].sequence.rawValue
        let lockTime = transaction.lockTime.rawValue
        var best: [[UInt8]]?
        var unmet: [String] = []
        for match in matches {
            let signatures = tapScriptSignatures(ofInput: input, leafHash: match.leafHash)
            let satisfier = MiniscriptSatisfier(signatures: signatures, sequence: sequence, lockTime: lockTime)
            guard let satisfied = try? match.miniscript.satisfy(at: match.index, path: match.path, with: satisfier)
            else {
                let plan = try? match.miniscript.plan(at: match.index, path: match.path, keys: Set(signatures.keys))
                if let plan = plan ?? nil {
                    var needs: [String] = []
                    if let older = plan.relativeTimelock {
                        needs.append("nSequence meeting older(\(older)) (the input has \(sequence), version 2)")
                    }
                    if let after = plan.absoluteTimelock {
                        needs.append("nLockTime meeting after(\(after)) (the transaction has \(lockTime))")
                    }
                    unmet.append(
                        "the leaf \(match.miniscript.policyDescription()) needs " + needs.joined(separator: " and "))
                }
                continue
            }
            let witness = satisfied.witness(script: match.script, controlBlock: match.controlBlock)
            let size = witness.reduce(0) { $0 + $1.count }
            if let current = best, current.reduce(0, { $0 + $1.count }) <= size { continue }
            best = witness
        }
        guard let best else {
            if !unmet.isEmpty {
                throw .cannotFinalize(input: input, reason: "timelock not met: " + unmet.joined(separator: "; "))
            }
            throw .cannotFinalize(
                input: input,
                reason: "not enough signatures: the signatures present satisfy no miniscript leaf ("
                    + matches.map { $0.miniscript.policyDescription() }.joined(separator: "; ") + ")")
        }
        var map = inputs[input].map
        map.entries.removeAll { PSBTCanonicalOrder.inputSigningFields.contains($0.keyType) }
        map.set(PSBTKeyType.Input.finalScriptWitness, value: PSBTInput.encodeWitness(best))
        inputs[input].map = map
        canonicalize()
    }
}
