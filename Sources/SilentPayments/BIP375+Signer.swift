import Bitcoin
import BitcoinCrypto

extension BIP375 {
    /// What a signer's silent-payment pass did.
    public struct SignerStep: Sendable {
        /// The PSBT with this signer's shares (and the scripts, when complete).
        public var psbt: PSBT
        /// The inputs this signer added a per-input share for.
        public var sharedInputs: [Int]
        /// The scan keys this signer added a global share for.
        public var globalShares: [PublicKey]
        /// Whether every silent-payment output now has its script (signing may go on only then).
        public var complete: Bool
        /// The eligible inputs still without an ECDH share for some scan key (another signer must add it), when not
        /// complete.
        public var pendingInputs: [Int] = []
    }

    /// BIP375's Signer role for the silent-payment part, before any signature: refuses what the BIP forbids (a
    /// segwit v2+ input, a sighash other than ALL, a key that is not the input's, a share whose proof fails, a set
    /// script that is not the one the shares give), adds this signer's ECDH shares with DLEQ proofs (a global share
    /// when its keys cover every eligible input), and computes the scripts once every share is in, clearing the
    /// modifiable flags.
    ///
    /// `keys` maps input index to the private key of the key BIP352 counts for that input (for a taproot input,
    /// the tweaked output key); keys of inputs that do not count are ignored.
    /// - Throws: `SilentPaymentError` (refusals are `failureKind == .refused`).
    public static func signerStep(
        _ psbt: PSBT, keys: [Int: PrivateKey],
        auxiliaryRandomness: () -> [UInt8] = { SecureRandom.bytes(32) }
    ) throws(SilentPaymentError) -> SignerStep {
        guard hasSilentPayments(psbt) else {
            return SignerStep(psbt: psbt, sharedInputs: [], globalShares: [], complete: true)
        }
        try checkStructure(psbt)
        try checkInputEligibility(psbt)
        try checkInputKeys(psbt)
        // The others' shares and proofs first; a script already set is judged once this signer's shares are in.
        try checkECDHCoverage(psbt, scriptsNeedCoverage: false)
        let eligible = try eligibleInputs(psbt)
        guard !eligible.isEmpty else {
            throw .derivationFailed(
                "no input can pay a silent payment (BIP352 counts P2PKH, P2WPKH, P2SH-P2WPKH, P2TR)")
        }
        // The owned keys, each adjusted as BIP352 counts it, checked against the input's key.
        var owned: [(index: Int, key: PrivateKey)] = []
        for (index, inputKey) in eligible {
            guard let key = keys[index], case .eligible(_, let isTaproot) = try inputKind(psbt, input: index) else {
                continue
            }
            let adjusted = isTaproot && key.publicKey.xOnly.parityIsOdd ? key.negated() : key
            if let inputKey, inputKey != adjusted.publicKey {
                throw .badProof("the key this signer holds for input \(index) is not the key the input spends")
            }
            owned.append((index, adjusted))
        }
        var result = psbt
        var sharedInputs: Set<Int> = []
        var globals: [PublicKey] = []
        var scanKeys: [PublicKey] = []
        for output in outputs(of: psbt) where !scanKeys.contains(output.scanKey) { scanKeys.append(output.scanKey) }
        for scan in scanKeys {
            if result.global.entry(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed) != nil { continue }
            if owned.count == eligible.count {
                let sum = try BIP352.privateKeySum(owned.map { ($0.key, false) })
                let (share, proof) = try shareAndProof(sum, scan: scan, auxiliaryRandomness())
                result.global.set(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed, value: share.compressed)
                result.global.set(PSBTKeyType.Global.spDLEQ, keyData: scan.compressed, value: proof)
                globals.append(scan)
                continue
            }
            for (index, key) in owned
            where result.inputs[index].map.entry(PSBTKeyType.Input.spECDHShare, keyData: scan.compressed) == nil {
                let (share, proof) = try shareAndProof(key, scan: scan, auxiliaryRandomness())
                result.inputs[index].map.set(
                    PSBTKeyType.Input.spECDHShare, keyData: scan.compressed, value: share.compressed)
                result.inputs[index].map.set(PSBTKeyType.Input.spDLEQ, keyData: scan.compressed, value: proof)
                sharedInputs.insert(index)
            }
        }
        let complete = try completeScripts(&result)
        if !complete { try validate(result) }  // a script set while shares are missing is refused here
        return SignerStep(
            psbt: result, sharedInputs: sharedInputs.sorted(), globalShares: globals, complete: complete,
            pendingInputs: complete ? [] : try pendingInputs(result))
    }

    /// The eligible inputs that still lack an ECDH share for some scan key (none under a global share).
    public static func pendingInputs(_ psbt: PSBT) throws(SilentPaymentError) -> [Int] {
        var pending: Set<Int> = []
        let eligible = try eligibleInputs(psbt)
        for scan in Set(outputs(of: psbt).map(\.scanKey))
        where psbt.global.entry(PSBTKeyType.Global.spECDHShare, keyData: scan.compressed) == nil {
            for (index, _) in eligible
            where psbt.inputs[index].map.entry(PSBTKeyType.Input.spECDHShare, keyData: scan.compressed) == nil {
                pending.insert(index)
            }
        }
        return pending.sorted()
    }

    private static func shareAndProof(_ key: PrivateKey, scan: PublicKey, _ randomness: [UInt8])
        throws(SilentPaymentError) -> (PublicKey, [UInt8])
    {
        guard let share = try? scan.multiplied(by: key),
            let proof = DLEQ.generateProof(privateKey: key, point: scan, auxiliaryRandomness: randomness)
        else { throw .derivationFailed("the ECDH share or its proof could not be made") }
        return (share, proof)
    }

    /// Sets the script of every silent-payment output once all its shares are in (after checking every proof),
    /// and clears the modifiable flags; whether every silent-payment output has its script.
    ///
    /// - Throws: `SilentPaymentError.badProof` or `.scriptMismatch` (a script already set that the shares refute).
    public static func completeScripts(_ psbt: inout PSBT) throws(SilentPaymentError) -> Bool {
        let spOutputs = outputs(of: psbt)
        guard !spOutputs.isEmpty else { return true }
        try checkECDHCoverage(psbt)
        let derived = try derivedScripts(psbt)
        guard spOutputs.allSatisfy({ derived[$0.index] != nil }) else { return false }
        for output in spOutputs {
            guard let script = derived[output.index] else { continue }
            if let existing = output.script {
                guard existing == script else { throw .scriptMismatch(output: output.index) }
            } else {
                psbt.outputs[output.index].map.set(PSBTKeyType.Output.script, value: script.bytes)
            }
        }
        psbt.global.set(PSBTKeyType.Global.txModifiable, value: [0])
        try validate(psbt)
        return true
    }

    /// The check the watcher runs before it finalizes or broadcasts: every rule of BIP375, every proof, every
    /// script recomputed, and none missing.
    ///
    /// - Throws: `SilentPaymentError` (`.scriptMismatch`, `.badProof` ... are refusals; `.incomplete` when a
    ///   silent-payment output has no script yet).
    public static func verifyComplete(_ psbt: PSBT) throws(SilentPaymentError) {
        guard hasSilentPayments(psbt) else { return }
        try validate(psbt)
        try checkInputKeys(psbt)
        for output in outputs(of: psbt) where output.script == nil {
            throw .incomplete("output \(output.index) has no script yet: a signer has not added its ECDH share")
        }
    }
}
