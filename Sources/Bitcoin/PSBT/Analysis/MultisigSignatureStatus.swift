/// Who has signed one multisig input of a PSBT and how many signatures it still needs, read from the input's own
/// script (a `multi`/`sortedmulti` witness or redeem script, or a `multi_a`/`sortedmulti_a` taproot leaf) and its
/// signature fields (PSBT_IN_PARTIAL_SIG, PSBT_IN_TAP_SCRIPT_SIG for that leaf).
///
/// A signature counts when the PSBT holds one for the key; it is not verified here (the finalizer and the node do).
public struct MultisigSignatureStatus: Sendable, Equatable {
    /// One cosigner key of the script, in script order.
    public struct Cosigner: Sendable, Equatable {
        /// The key as the script holds it (33 bytes, or 32 x-only in a tapscript).
        public let key: [UInt8]
        /// The master fingerprint of its BIP32 (or BIP371) derivation in the PSBT, when it names one.
        public let fingerprint: Fingerprint?
        /// Whether the PSBT holds a signature by this key.
        public let hasSigned: Bool
    }

    /// The number of signatures the script needs.
    public let threshold: Int
    /// Every key of the script.
    public let cosigners: [Cosigner]
    /// `multisig` (CHECKMULTISIG) or `multi_a` (tapscript CHECKSIGADD).
    public let kind: String

    /// The number of keys that have signed.
    public var signatureCount: Int { cosigners.filter(\.hasSigned).count }
    /// How many more signatures the input needs (0 once the threshold is met).
    public var missing: Int { max(0, threshold - signatureCount) }

    /// The status of `input`, or nil when it is finalized or its script is not a multisig one.
    public init?(_ input: PSBTInput) {
        guard !input.isFinalized else { return nil }
        for script in [input.witnessScript, input.redeemScript].compactMap({ $0 }) {
            guard case .multisig(let threshold, let keys) = script.template else { continue }
            let origins = Dictionary(
                input.bip32Derivations.map { ($0.publicKey.compressed, $0.origin.fingerprint) },
                uniquingKeysWith: { first, _ in first })
            let signed = Set(input.map.entries(PSBTKeyType.Input.partialSig).map(\.keyData))
            let keyBytes = keys.map(\.compressed)
            self.threshold = threshold
            self.kind = "multisig"
            self.cosigners = keyBytes.map {
                Cosigner(key: $0, fingerprint: origins[$0], hasSigned: signed.contains($0))
            }
            return
        }
        for leaf in input.tapLeafScripts where leaf.leafVersion & 0xFE == TapLeaf.tapscriptVersion {
            guard let (threshold, keys) = Self.multiA(leaf.script) else { continue }
            let leafHash = TapLeaf(tapscript: leaf.script).hash.bytes
            let origins = Dictionary(
                input.tapBIP32Derivations.map { ($0.key.bytes, $0.origin.fingerprint) },
                uniquingKeysWith: { first, _ in first })
            self.threshold = threshold
            self.kind = "multi_a"
            self.cosigners = keys.map { key in
                Cosigner(
                    key: key, fingerprint: origins[key],
                    hasSigned: input.map.entry(PSBTKeyType.Input.tapScriptSig, keyData: key + leafHash) != nil)
            }
            return
        }
        return nil
    }

    /// The threshold and keys of `<k1> CHECKSIG <k2> CHECKSIGADD … <m> NUMEQUAL`, or nil for another script.
    static func multiA(_ script: Script) -> (Int, [[UInt8]])? {
        guard let operations = try? script.operations(), operations.count >= 4,
            operations.last?.opcode == .numEqual
        else { return nil }
        let thresholdOperation = operations[operations.count - 2]
        guard
            let threshold = thresholdOperation.opcode.smallIntegerValue
                ?? thresholdOperation.data.flatMap(PSBTFinalizer.scriptNumber)
        else { return nil }
        var keys: [[UInt8]] = []
        var position = 0
        while position + 1 < operations.count - 2 {
            guard let key = operations[position].data, key.count == 32,
                operations[position + 1].opcode == (position == 0 ? .checkSig : .checkSigAdd)
            else { return nil }
            keys.append(key)
            position += 2
        }
        guard position == operations.count - 2, threshold >= 1, threshold <= keys.count else { return nil }
        return (threshold, keys)
    }
}

extension MultisigSignatureStatus {
    /// One line for a review.
    ///
    /// `2 of 3 (multi_a): signed by 1a2b3c4d; not yet: 5e6f7a8b (this vault), 9c0d1e2f; 1 more signature needed`.
    /// Keys without a derivation show as `key 02ab…` (their first bytes).
    public func summary(thisVault: Fingerprint? = nil) -> String {
        func name(_ cosigner: Cosigner) -> String {
            let base = cosigner.fingerprint?.hexString ?? "key \(cosigner.key.prefix(4).hexString)…"
            return cosigner.fingerprint != nil && cosigner.fingerprint == thisVault ? base + " (this vault)" : base
        }
        let signed = cosigners.filter(\.hasSigned).map(name)
        let waiting = cosigners.filter { !$0.hasSigned }.map(name)
        var text = "\(threshold) of \(cosigners.count) (\(kind)): signed by "
        text += signed.isEmpty ? "nobody yet" : signed.joined(separator: ", ")
        if !waiting.isEmpty { text += "; not yet: " + waiting.joined(separator: ", ") }
        text +=
            missing == 0
            ? "; enough signatures" : "; \(missing) more signature\(missing == 1 ? "" : "s") needed"
        return text
    }
}
