import Bitcoin
import BitcoinCrypto

/// A PSBT output paying a silent-payment address (PSBT_OUT_SP_V0_INFO).
public struct SilentPaymentOutput: Sendable, Hashable {
    /// The output's index in the transaction.
    public let index: Int
    /// B_scan.
    public let scanKey: PublicKey
    /// B_m (the spend key, labelled or not).
    public let spendKey: PublicKey
    /// PSBT_OUT_SP_V0_LABEL, when the output is the signer's own labelled change.
    public let label: UInt32?
    /// PSBT_OUT_SCRIPT once computed.
    public let script: Script?
    /// PSBT_OUT_AMOUNT.
    public let amount: Amount?

    /// The address the output pays, for `network`.
    public func address(network: Network) -> SilentPaymentAddress {
        SilentPaymentAddress(scanKey: scanKey, spendKey: spendKey, network: network)
    }
}

/// How an input counts for BIP352.
public enum SilentPaymentInputKind: Sendable, Hashable {
    /// It does not count (P2WSH, bare multisig, P2SH other than P2SH-P2WPKH, P2TR with the NUMS internal key ...).
    case ineligible
    /// It counts with this public key (nil when the PSBT does not say which key it is).
    case eligible(PublicKey?, isTaproot: Bool)
}

/// BIP375: the silent-payment fields of a PSBTv2, their validity rules (the four check groups of the BIP's test
/// vectors), and the signer's steps (add ECDH shares with DLEQ proofs, compute the output scripts).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0375.mediawiki
public enum BIP375 {
    /// The check groups of BIP375's validation, in the order they run.
    public enum Check: String, Sendable, CaseIterable {
        case psbtStructure = "psbt_structure"
        case ecdhCoverage = "ecdh_coverage"
        case inputEligibility = "input_eligibility"
        case outputScripts = "output_scripts"
    }

    /// The silent-payment outputs of `psbt`.
    public static func outputs(of psbt: PSBT) -> [SilentPaymentOutput] {
        psbt.outputs.enumerated().compactMap { index, output in
            guard let info = output.map.value(PSBTKeyType.Output.spV0Info), info.count == 66,
                let scan = try? PublicKey(serialized: info[0..<33]),
                let spend = try? PublicKey(serialized: info[33..<66])
            else { return nil }
            let label = output.map.value(PSBTKeyType.Output.spV0Label).flatMap { bytes -> UInt32? in
                guard bytes.count == 4 else { return nil }
                return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
            }
            return SilentPaymentOutput(
                index: index, scanKey: scan, spendKey: spend, label: label, script: output.script,
                amount: output.amount)
        }
    }

    /// Whether `psbt` pays any silent-payment address.
    public static func hasSilentPayments(_ psbt: PSBT) -> Bool {
        psbt.outputs.contains { $0.map.contains(PSBTKeyType.Output.spV0Info) }
    }

    /// The script input `index` spends, from its witness or non-witness UTXO.
    public static func spentScript(_ psbt: PSBT, input index: Int) -> Script? {
        let input = psbt.inputs[index]
        if let utxo = input.witnessUTXO { return utxo.scriptPubKey }
        guard let vout = input.previousOutpoint?.vout else { return nil }
        return input.spentOutput(vout: vout)?.scriptPubKey
    }

    /// How input `index` counts for BIP352, with its key from the PSBT (a BIP32 derivation whose key hashes to the
    /// script, or the taproot output key).
    ///
    /// - Throws: `SilentPaymentError.invalidPSBT` when the input does not say what it spends, or a P2SH input has
    ///   no redeem script.
    public static func inputKind(_ psbt: PSBT, input index: Int) throws(SilentPaymentError) -> SilentPaymentInputKind {
        guard let script = spentScript(psbt, input: index) else {
            throw .invalidPSBT("input \(index) does not include the output it spends")
        }
        let input = psbt.inputs[index]
        // The first BIP32 derivation's key, as BIP375's reference reads it; `checkInputKeys` adds that it must hash to
        // the script it spends (the BIP's vectors pair keys and scripts freely, so that check is apart).
        func derivedKey(hash: [UInt8]) -> PublicKey? {
            guard let entry = input.map.entries(PSBTKeyType.Input.bip32Derivation).first, entry.keyData.count == 33
            else { return nil }
            return try? PublicKey(serialized: entry.keyData)
        }
        // A finalized input (its derivations dropped) still shows its key in its final scriptSig or witness.
        func finalKey() -> PublicKey? {
            guard input.isFinalized else { return nil }
            return BIP352.inputPublicKey(
                spentScript: script, scriptSig: input.finalScriptSig?.bytes ?? [],
                witness: input.finalScriptWitness ?? [])?.key
        }
        switch script.template {
        case .p2pkh(let hash), .p2wpkh(let hash):
            return .eligible(derivedKey(hash: hash.bytes) ?? finalKey(), isTaproot: false)
        case .p2sh(let scriptHash):
            guard let redeem = input.redeemScript ?? finalRedeemScript(input) else {
                throw .invalidPSBT("P2SH input \(index) has no redeem script, so it cannot tell whether it counts")
            }
            guard Hash160.hash(redeem.bytes) == scriptHash.bytes, case .p2wpkh(let hash) = redeem.template else {
                return .ineligible
            }
            return .eligible(derivedKey(hash: hash.bytes) ?? finalKey(), isTaproot: false)
        case .p2tr(let outputKey):
            if input.map.value(PSBTKeyType.Input.tapInternalKey) == BIP352.numsInternalKey { return .ineligible }
            return .eligible(outputKey.evenPublicKey, isTaproot: true)
        default:
            return .ineligible
        }
    }

    /// Every eligible input's key (from its BIP32 derivation) hashes to the script it spends.
    ///
    /// So a coordinator cannot make a share be checked against a key the input does not have. Not one of BIP375's check groups: the
    /// signer and the watcher run it beside them.
    ///
    /// - Throws: `SilentPaymentError.badProof` naming the input.
    public static func checkInputKeys(_ psbt: PSBT) throws(SilentPaymentError) {
        guard hasSilentPayments(psbt) else { return }
        for index in psbt.inputs.indices {
            guard case .eligible(let key?, false) = try inputKind(psbt, input: index),
                let script = spentScript(psbt, input: index)
            else { continue }
            let hash = Hash160.hash(key.compressed)
            let matches: Bool
            switch script.template {
            case .p2pkh(let expected), .p2wpkh(let expected): matches = expected.bytes == hash
            case .p2sh:
                if case .p2wpkh(let expected)? =
                    (psbt.inputs[index].redeemScript ?? finalRedeemScript(psbt.inputs[index]))?
                    .template
                {
                    matches = expected.bytes == hash
                } else {
                    matches = false
                }
            default: matches = false
            }
            guard matches else {
                throw .badProof("the public key given for input \(index) is not the key of the output it spends")
            }
        }
    }

    /// The redeem script a finalized P2SH input pushed last in its scriptSig.
    static func finalRedeemScript(_ input: PSBTInput) -> Script? {
        guard let sig = input.finalScriptSig?.bytes, sig.count == 23, sig[0] == 0x16 else { return nil }
        return Script(sig.dropFirst())
    }

    /// Runs `checks` (all four by default) on `psbt`.
    ///
    /// - Throws: the first `SilentPaymentError` found.
    public static func validate(_ psbt: PSBT, checks: [Check] = Check.allCases) throws(SilentPaymentError) {
        for check in checks {
            switch check {
            case .psbtStructure: try checkStructure(psbt)
            case .ecdhCoverage: try checkECDHCoverage(psbt)
            case .inputEligibility: try checkInputEligibility(psbt)
            case .outputScripts: try checkOutputScripts(psbt)
            }
        }
    }

    /// Field requirements: PSBTv2, every output with a script or an address, and the modifiable flags cleared once a
    /// silent-payment script is set.
    public static func checkStructure(_ psbt: PSBT) throws(SilentPaymentError) {
        guard hasSilentPayments(psbt) else { return }
        guard psbt.version == 2 else { throw .invalidPSBT("silent payments need a version 2 PSBT") }
        for (index, output) in psbt.outputs.enumerated() {
            let hasScript = !(output.map.value(PSBTKeyType.Output.script) ?? []).isEmpty
            guard hasScript || output.map.contains(PSBTKeyType.Output.spV0Info) else {
                throw .invalidPSBT("output \(index) has neither a script nor a silent-payment address")
            }
        }
        var groups: [PublicKey: [Int]] = [:]
        for output in outputs(of: psbt) { groups[output.scanKey, default: []].append(output.index) }
        for group in groups.values.sorted(by: { $0[0] < $1[0] }) where group.count > BIP352.maxRecipientsPerGroup {
            throw .tooManyOutputs(count: group.count, recipient: "outputs \(group[0]) and after")
        }
        let anyScriptSet = outputs(of: psbt).contains { !($0.script?.bytes.isEmpty ?? true) }
        if anyScriptSet, psbt.global.value(PSBTKeyType.Global.txModifiable) != [0] {
            throw .invalidPSBT("a silent-payment script is set but the inputs and outputs are still marked modifiable")
        }
    }

    /// The eligible inputs: index and key (nil when unknown).
    static func eligibleInputs(_ psbt: PSBT) throws(SilentPaymentError) -> [(index: Int, key: PublicKey?)] {
        var result: [(index: Int, key: PublicKey?)] = []
        for index in psbt.inputs.indices {
            if case .eligible(let key, _) = try inputKind(psbt, input: index) { result.append((index, key)) }
        }
        return result
    }

    static func sum(_ keys: [PublicKey]) throws(SilentPaymentError) -> PublicKey {
        do { return try PublicKey.combine(keys) } catch {
            throw .derivationFailed("the inputs' keys sum to the point at infinity")
        }
    }

    /// The ECDH share for `scan` and the sum of the eligible inputs' keys, when complete.
    ///
    /// The global share, or every eligible input's share summed. Nil when shares are missing. Proofs are not checked here.
    static func combinedShare(_ psbt: PSBT, scan: PublicKey) throws(SilentPaymentError)
        -> (share: PublicKey, keySum: PublicKey)?
    {
        let eligible = try eligibleInputs(psbt)
        guard !eligible.isEmpty else { return nil }
        let keys = eligible.compactMap(\.key)
        if let global = psbt.global.entry(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed),
            let share = try? PublicKey(serialized: global.value)
        {
            guard keys.count == eligible.count else { return nil }
            return (share, try sum(keys))
        }
        var shares: [PublicKey] = []
        for (index, _) in eligible {
            guard
                let entry = psbt.inputs[index].map.entry(PSBTKeyType.Input.spECDHShare, keyData: scan.compressed),
                let share = try? PublicKey(serialized: entry.value)
            else { return nil }
            shares.append(share)
        }
        guard keys.count == eligible.count else { return nil }
        return (try sum(shares), try sum(keys))
    }

    /// Every share has its proof and every proof verifies; a set script needs full coverage of its scan key (unless
    /// `scriptsNeedCoverage` is false: a signer checks the shares before adding its own, then everything).
    public static func checkECDHCoverage(_ psbt: PSBT, scriptsNeedCoverage: Bool = true) throws(SilentPaymentError) {
        let spOutputs = outputs(of: psbt)
        guard !spOutputs.isEmpty else { return }
        let eligible = try eligibleInputs(psbt)
        var scanKeys: [PublicKey] = []
        for output in spOutputs where !scanKeys.contains(output.scanKey) { scanKeys.append(output.scanKey) }
        for scan in scanKeys {
            let hasScript = spOutputs.contains { $0.scanKey == scan && $0.script != nil }
            if let global = psbt.global.entry(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed) {
                guard let proof = psbt.global.entry(PSBTKeyType.Global.spDLEQ, keyData: scan.compressed) else {
                    throw .badProof("the global ECDH share has no DLEQ proof")
                }
                let keys = eligible.compactMap(\.key)
                guard !eligible.isEmpty, keys.count == eligible.count else {
                    throw .badProof("the inputs' keys needed to check the global share are not all in the PSBT")
                }
                guard let share = try? PublicKey(serialized: global.value),
                    DLEQ.verifyProof(a: try sum(keys), b: scan, c: share, proof: proof.value)
                else { throw .badProof("the global DLEQ proof does not verify") }
            }
            var covered = !eligible.isEmpty
            for (index, key) in eligible {
                let map = psbt.inputs[index].map
                guard let entry = map.entry(PSBTKeyType.Input.spECDHShare, keyData: scan.compressed) else {
                    covered = false
                    continue
                }
                guard let proof = map.entry(PSBTKeyType.Input.spDLEQ, keyData: scan.compressed) else {
                    throw .badProof("the ECDH share of input \(index) has no DLEQ proof")
                }
                guard let key else {
                    throw .badProof("input \(index) does not give its public key (PSBT_IN_BIP32_DERIVATION)")
                }
                guard let share = try? PublicKey(serialized: entry.value),
                    DLEQ.verifyProof(a: key, b: scan, c: share, proof: proof.value)
                else { throw .badProof("the DLEQ proof of input \(index) does not verify") }
            }
            let hasGlobal = psbt.global.entry(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed) != nil
            if scriptsNeedCoverage, hasScript, !hasGlobal, !covered {
                throw .badProof("an output script is set but not every eligible input has an ECDH share")
            }
        }
    }

    /// No segwit v2+ input, and SIGHASH_ALL only (a taproot input's SIGHASH_DEFAULT, which commits to the same, too).
    public static func checkInputEligibility(_ psbt: PSBT) throws(SilentPaymentError) {
        guard hasSilentPayments(psbt) else { return }
        for index in psbt.inputs.indices {
            guard let script = spentScript(psbt, input: index) else { continue }
            if let program = script.witnessProgram, program.version >= 2 {
                throw .forbiddenInput(
                    index: index,
                    reason: "it spends a segwit version \(program.version) output, which BIP352 cannot count")
            }
        }
        for (index, input) in psbt.inputs.enumerated() {
            let isTaproot: Bool = {
                if case .p2tr = spentScript(psbt, input: index)?.template { return true }
                return false
            }()
            if let sighash = input.sighashType, !(sighash == 1 || (isTaproot && sighash == 0)) {
                throw .forbiddenSighash(index: index, sighash: sighash)
            }
            for signature in input.partialSignatures {
                if let last = signature.signature.last, last != 1 {
                    throw .forbiddenSighash(index: index, sighash: UInt32(last))
                }
            }
            if let key = input.tapKeySignature, key.count == 65, key[64] != 1 {
                throw .forbiddenSighash(index: index, sighash: UInt32(key[64]))
            }
        }
    }

    /// The scripts the shares give, by output index, for every silent-payment output whose scan key is covered.
    ///
    /// k counts the outputs of each scan key in output order, as BIP375's reference validator and its test
    /// vectors do (the vectors "label=3 / label=1" and "not sorted lexicographically by spend key" both require it).
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` when a computation fails, `.invalidPSBT` as `inputKind`.
    public static func derivedScripts(_ psbt: PSBT) throws(SilentPaymentError) -> [Int: Script] {
        let spOutputs = outputs(of: psbt)
        var outpoints: [OutPoint] = []
        for input in psbt.inputs {
            guard let outpoint = input.previousOutpoint else { throw .invalidPSBT("an input has no previous outpoint") }
            outpoints.append(outpoint)
        }
        var scanKeys: [PublicKey] = []
        for output in spOutputs where !scanKeys.contains(output.scanKey) { scanKeys.append(output.scanKey) }
        var scripts: [Int: Script] = [:]
        for scan in scanKeys {
            guard let (share, keySum) = try combinedShare(psbt, scan: scan) else { continue }
            let hash = try BIP352.inputHash(outpoints: outpoints, inputKeySum: keySum)
            let group = spOutputs.filter { $0.scanKey == scan }
            guard group.count <= BIP352.maxRecipientsPerGroup else {
                throw .tooManyOutputs(count: group.count, recipient: "outputs \(group[0].index) and after")
            }
            for (k, output) in group.enumerated() {
                let key = try BIP352.outputKey(
                    ecdhShare: share, inputHash: hash, spendKey: output.spendKey, k: UInt32(k))
                scripts[output.index] = BIP352.script(outputKey: key)
            }
        }
        return scripts
    }

    /// Every set silent-payment script is the one the shares give.
    public static func checkOutputScripts(_ psbt: PSBT) throws(SilentPaymentError) {
        let spOutputs = outputs(of: psbt)
        guard spOutputs.contains(where: { $0.script != nil }) else { return }
        for input in psbt.inputs where input.previousOutpoint == nil {
            _ = input
            throw .invalidPSBT("an input has no previous outpoint")
        }
        let eligible = try eligibleInputs(psbt)
        guard !eligible.isEmpty else {
            throw .derivationFailed("no input counts for a silent payment (BIP352 needs at least one eligible input)")
        }
        let derived = try derivedScripts(psbt)
        for output in spOutputs {
            guard let script = output.script else { continue }
            guard let expected = derived[output.index] else {
                throw .incomplete("output \(output.index) has a script but the ECDH shares for it are missing")
            }
            guard expected == script else { throw .scriptMismatch(output: output.index) }
        }
    }
}
