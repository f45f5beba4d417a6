import Bitcoin
import BitcoinCrypto
import Codecs

/// Who has signed one multisig input of a PSBT and how many signatures it still needs, read from the input's own
/// script (a `multi`/`sortedmulti` witness or redeem script, or a `multi_a`/`sortedmulti_a` taproot leaf) and its
/// signature fields (PSBT_IN_PARTIAL_SIG, PSBT_IN_TAP_SCRIPT_SIG for that leaf).
///
/// A signature counts when the PSBT holds one for the key. `statuses(of:)` also verifies each against its signature
/// hash (BIP143 / legacy for CHECKMULTISIG, BIP342 with the leaf hash for `multi_a`) when the UTXOs allow it: a
/// signature that does not verify is reported as bad and does not count.
public struct MultisigSignatureStatus: Sendable, Equatable {
    /// One cosigner key of the script, in script order.
    public struct Cosigner: Sendable, Equatable {
        /// The key as the script holds it (33 bytes, or 32 x-only in a tapscript).
        public let key: [UInt8]
        /// The master fingerprint of its BIP32 (or BIP371) derivation in the PSBT, when it names one.
        public let fingerprint: Fingerprint?
        /// Whether the PSBT holds a signature by this key that counts (present, and not found invalid).
        public var hasSigned: Bool { hasSignature && isValid != false }
        /// Whether the PSBT holds a signature by this key.
        public let hasSignature: Bool
        /// Whether that signature verifies: nil when not checked (no signature, or the UTXOs needed are missing).
        public var isValid: Bool?
        /// A signature is present and does not verify.
        public var hasBadSignature: Bool { hasSignature && isValid == false }

        public init(key: [UInt8], fingerprint: Fingerprint?, hasSigned: Bool, isValid: Bool? = nil) {
            self.key = key
            self.fingerprint = fingerprint
            self.hasSignature = hasSigned
            self.isValid = isValid
        }
    }

    /// The number of signatures the script needs.
    public let threshold: Int
    /// Every key of the script.
    public internal(set) var cosigners: [Cosigner]
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

    /// The status of every multisig input of `psbt`, by input index, each signature verified where the UTXOs allow.
    public static func statuses(of psbt: PSBT) -> [Int: MultisigSignatureStatus] {
        var result: [Int: MultisigSignatureStatus] = [:]
        for (index, input) in psbt.inputs.enumerated() {
            if let status = MultisigSignatureStatus(input) { result[index] = status }
        }
        guard !result.isEmpty, let transaction = try? psbt.unsignedTransaction() else { return result }
        let utxos = psbt.inputs.enumerated().map { index, input in
            input.spentOutput(vout: transaction.inputs[index].previousOutput.vout)
        }
        let spent = utxos.contains { $0 == nil } ? nil : utxos.compactMap { $0 }
        var cache = SighashCache(transaction, spentOutputs: spent)
        for (index, status) in result {
            var checked = status
            for (number, cosigner) in status.cosigners.enumerated() where cosigner.hasSignature {
                checked.cosigners[number].isValid = verify(
                    cosigner.key, psbt.inputs[index], index: index, utxo: utxos[index], kind: status.kind,
                    cache: &cache)
            }
            result[index] = checked
        }
        return result
    }

    /// Whether the signature by `key` in `input` verifies, or nil when it cannot be checked.
    private static func verify(
        _ key: [UInt8], _ input: PSBTInput, index: Int, utxo: TxOut?, kind: String, cache: inout SighashCache
    ) -> Bool? {
        if kind == "multi_a" {
            guard let leaf = input.tapLeafScripts.first(where: { multiA($0.script) != nil }) else { return nil }
            let leafHash = TapLeaf(tapscript: leaf.script).hash
            guard let value = input.map.entry(PSBTKeyType.Input.tapScriptSig, keyData: key + leafHash.bytes)?.value,
                value.count == 64 || value.count == 65, let xOnly = try? XOnlyPublicKey(serialized: key),
                let signature = try? SchnorrSignature(serialized: value.prefix(64))
            else { return false }
            let type = SighashType(rawValue: value.count == 65 ? UInt32(value[64]) : 0)
            guard value.count == 64 || type.rawValue != 0,
                let digest = try? cache.taprootSignatureHash(inputIndex: index, type: type, leafHash: leafHash)
            else { return value.count == 65 && type.rawValue == 0 ? false : nil }
            return xOnly.verify(signature, message: digest)
        }
        guard let value = input.map.entry(PSBTKeyType.Input.partialSig, keyData: key)?.value, let last = value.last,
            let publicKey = try? PublicKey(serialized: key)
        else { return false }
        guard let signature = try? ECDSASignature(der: value.dropLast()) else { return false }
        let type = SighashType(rawValue: UInt32(last))
        let digest: [UInt8]?
        if let witnessScript = input.witnessScript {
            guard let utxo else { return nil }
            digest = try? cache.segwitV0SignatureHash(
                inputIndex: index, scriptCode: witnessScript, amount: utxo.value, type: type)
        } else if let redeemScript = input.redeemScript {
            digest = try? cache.legacySignatureHash(inputIndex: index, scriptCode: redeemScript, type: type)
        } else {
            return nil
        }
        guard let digest else { return nil }
        return publicKey.verify(signature, digest: digest)
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
    /// `cosignerName` gives a cosigner's registered name by fingerprint, shown as `Alice (1a2b3c4d)`.
    public func summary(
        thisVault: Fingerprint? = nil, cosignerName: (Fingerprint) -> String? = { _ in nil }
    ) -> String {
        func name(_ cosigner: Cosigner) -> String {
            var base = cosigner.fingerprint?.hexString ?? "key \(cosigner.key.prefix(4).hexString)…"
            if let fingerprint = cosigner.fingerprint, let given = cosignerName(fingerprint) {
                base = "\(DisplayText.clean(given)) (\(base))"
            }
            return cosigner.fingerprint != nil && cosigner.fingerprint == thisVault ? base + " (this vault)" : base
        }
        let signed = cosigners.filter(\.hasSigned).map(name)
        let waiting = cosigners.filter { !$0.hasSigned }.map(name)
        let bad = cosigners.filter(\.hasBadSignature).map(name)
        var text = "\(threshold) of \(cosigners.count) (\(kind)): signed by "
        text += signed.isEmpty ? "nobody yet" : signed.joined(separator: ", ")
        if !bad.isEmpty { text += "; BAD SIGNATURE (does not verify, not counted): " + bad.joined(separator: ", ") }
        if !waiting.isEmpty { text += "; not yet: " + waiting.joined(separator: ", ") }
        text +=
            missing == 0
            ? "; enough signatures" : "; \(missing) more signature\(missing == 1 ? "" : "s") needed"
        return text
    }
}

/// The signature state of one multisig input in `--json` (`inspect` on both sides, `sign`).
public struct MultisigStatusJSON: Encodable, Sendable {
    /// One cosigner key.
    public struct Cosigner: Encodable, Sendable {
        @NullEncoded public var fingerprint: String?
        public let key: String
        /// A signature that counts: present, and verified or not checkable.
        public let signed: Bool
        /// Whether a present signature verifies (null when there is none or it cannot be checked).
        @NullEncoded public var valid: Bool?
    }
    /// `multisig` (CHECKMULTISIG) or `multi_a` (taproot CHECKSIGADD).
    public let kind: String
    /// The registered (signer) or imported (watcher) wallet the input belongs to, when known.
    @NullEncoded public var wallet: String?
    public let threshold: Int
    public let signatures: Int
    public let missing: Int
    public let cosigners: [Cosigner]

    public init(_ status: MultisigSignatureStatus, wallet: String?) {
        kind = status.kind
        self.wallet = wallet
        threshold = status.threshold
        signatures = status.signatureCount
        missing = status.missing
        cosigners = status.cosigners.map {
            Cosigner(
                fingerprint: $0.fingerprint?.hexString, key: $0.key.hexString, signed: $0.hasSigned, valid: $0.isValid)
        }
    }
}
