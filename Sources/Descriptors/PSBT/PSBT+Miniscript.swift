import Bitcoin
import BitcoinCrypto

/// Where a PSBT input's witness script comes from: a `wsh(MINISCRIPT)` / `sh(wsh(MINISCRIPT))` descriptor at one
/// child index of one branch (docs/miniscript.md).
public struct MiniscriptInputMatch: Sendable {
    /// The position of the descriptor in the list searched.
    public let descriptorIndex: Int
    /// The descriptor's miniscript.
    public let miniscript: Miniscript
    /// The branch of a multipath descriptor (0 for a single-path one).
    public let path: Int
    /// The child index.
    public let index: UInt32
    /// The witness script (the descriptor's script there, equal to the input's).
    public let witnessScript: Script
}

extension PSBT {
    /// Finds the descriptor whose miniscript gives input `input`'s witness script at a child index that one of the
    /// input's BIP32 derivations names, or nil.
    ///
    /// The scriptPubKey is compared as well when the input carries its UTXO, so the match proves that the coin is the
    /// descriptor's.
    public func miniscriptMatch(ofInput input: Int, descriptors: [Descriptor]) -> MiniscriptInputMatch? {
        guard inputs.indices.contains(input) else { return nil }
        let psbtInput = inputs[input]
        guard let witnessScript = psbtInput.witnessScript else { return nil }
        let utxo = (try? outpoint(of: input)).flatMap { psbtInput.spentOutput(vout: $0.vout) }
        var indexes: [UInt32] = []
        for derivation in psbtInput.bip32Derivations {
            guard let last = derivation.origin.path.components.last, !last.isHardened,
                !indexes.contains(last.rawValue)
            else { continue }
            indexes.append(last.rawValue)
        }
        for (number, descriptor) in descriptors.enumerated() {
            guard let miniscript = descriptor.miniscript else { continue }
            for index in indexes {
                for path in 0..<descriptor.multipathCount {
                    guard let script = try? miniscript.script(at: index, path: path), script == witnessScript else {
                        continue
                    }
                    if let utxo, (try? descriptor.scriptPubKey(at: index, path: path)) != utxo.scriptPubKey {
                        continue
                    }
                    return MiniscriptInputMatch(
                        descriptorIndex: number, miniscript: miniscript, path: path, index: index,
                        witnessScript: script)
                }
            }
        }
        return nil
    }

    /// The signatures input `input` holds, by 33-byte public key (PSBT_IN_PARTIAL_SIG).
    public func partialSignatures(ofInput input: Int) -> [[UInt8]: [UInt8]] {
        var signatures: [[UInt8]: [UInt8]] = [:]
        for entry in inputs[input].map.entries(PSBTKeyType.Input.partialSig) { signatures[entry.keyData] = entry.value }
        return signatures
    }

    /// Finalizes input `input`, a spend of a `wsh`/`sh(wsh)` miniscript of one of `descriptors`: the witness is the
    /// miniscript's non-malleable satisfaction (`Miniscript.satisfy`) with the input's partial signatures and the
    /// transaction's nSequence and nLockTime.
    ///
    /// - Throws: `PSBTError.cannotFinalize` naming why: no descriptor gives the witness script; the signatures on
    ///   hand satisfy no path; or they would, but a timelock is not met by the transaction's nSequence / nLockTime
    ///   (what the path needs, and what the transaction has).
    public mutating func finalizeMiniscriptInput(_ input: Int, descriptors: [Descriptor]) throws(PSBTError) {
        guard let match = miniscriptMatch(ofInput: input, descriptors: descriptors) else {
            throw .cannotFinalize(input: input, reason: "the witness script is no miniscript of this wallet")
        }
        let transaction = try unsignedTransaction()
        let sequence = transaction.inputs[input].sequence.rawValue
        let lockTime = transaction.lockTime.rawValue
        let signatures = partialSignatures(ofInput: input)
        let satisfier = MiniscriptSatisfier(signatures: signatures, sequence: sequence, lockTime: lockTime)
        let satisfaction: MiniscriptSatisfaction?
        do {
            satisfaction = try match.miniscript.satisfy(at: match.index, path: match.path, with: satisfier)
        } catch {
            throw .cannotFinalize(input: input, reason: "cannot derive the policy's keys: \(error)")
        }
        guard let satisfaction else {
            let plan = try? match.miniscript.plan(at: match.index, path: match.path, keys: Set(signatures.keys))
            guard let plan = plan ?? nil else {
                throw .cannotFinalize(
                    input: input,
                    reason: "not enough signatures: the \(signatures.count) signature(s) present satisfy no "
                        + "spending path of the policy \(match.miniscript.policyDescription())")
            }
            var needs: [String] = []
            if let older = plan.relativeTimelock {
                needs.append("nSequence meeting older(\(older)) (the input has \(sequence), version 2)")
            }
            if let after = plan.absoluteTimelock {
                needs.append("nLockTime meeting after(\(after)) (the transaction has \(lockTime))")
            }
            throw .cannotFinalize(
                input: input,
                reason: "timelock not met: the path these signatures can take needs "
                    + needs.joined(separator: " and "))
        }
        var map = inputs[input].map
        let redeemScript = inputs[input].redeemScript
        map.entries.removeAll { PSBTCanonicalOrder.inputSigningFields.contains($0.keyType) }
        if let redeemScript {
            map.set(PSBTKeyType.Input.finalScriptSig, value: Script([.push(redeemScript.bytes)]).bytes)
        }
        map.set(
            PSBTKeyType.Input.finalScriptWitness,
            value: PSBTInput.encodeWitness(satisfaction.witness(script: match.witnessScript)))
        inputs[input].map = map
        canonicalize()
    }
}
