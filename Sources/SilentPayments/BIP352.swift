import Bitcoin
import BitcoinCrypto

/// BIP352's sending computations.
///
/// Which inputs count and their keys, the input hash, the shared secret and the output keys. Every point and scalar operation is libsecp256k1's, through `PublicKey` and `PrivateKey`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0352.mediawiki
public enum BIP352 {
    /// K_max: the most outputs one transaction may pay to one scan key.
    public static let maxRecipientsPerGroup = 2323
    /// H, the x-only NUMS point BIP341 suggests as an unspendable internal key; inputs with it do not count.
    public static let numsInternalKey: [UInt8] = [
        0x50, 0x92, 0x9B, 0x74, 0xC1, 0xA0, 0x49, 0x54, 0xB7, 0x8B, 0x4B, 0x60, 0x35, 0xE9, 0x7A, 0x5E,
        0x07, 0x8A, 0x5A, 0x0F, 0x28, 0xEC, 0x96, 0xD5, 0x47, 0xBF, 0xEE, 0x9A, 0xCE, 0x80, 0x3A, 0xC0,
    ]

    static let inputsTag = TaggedHash(tag: "BIP0352/Inputs")
    static let sharedSecretTag = TaggedHash(tag: "BIP0352/SharedSecret")
    static let labelTag = TaggedHash(tag: "BIP0352/Label")

    /// The public key an input contributes, read from what spends it.
    ///
    /// BIP352 "Inputs For Shared Secret Derivation": P2PKH (a compressed key in the scriptSig hashing to the script), P2SH-P2WPKH and P2WPKH (a compressed key
    /// last in the witness), P2TR (the output key with even y, unless the script path reveals the NUMS internal key).
    /// Nil for an input that does not count. The second value tells a taproot input (whose private key is negated
    /// when its point has odd y).
    public static func inputPublicKey(spentScript: Script, scriptSig: [UInt8], witness: [[UInt8]])
        -> (key: PublicKey, isTaproot: Bool)?
    {
        switch spentScript.template {
        case .p2pkh(let hash):
            guard scriptSig.count >= 33 else { return nil }
            for end in stride(from: scriptSig.count, through: 33, by: -1) {
                let candidate = Array(scriptSig[(end - 33)..<end])
                if Hash160.hash(candidate) == hash.bytes {
                    guard candidate[0] == 0x02 || candidate[0] == 0x03, let key = try? PublicKey(serialized: candidate)
                    else { return nil }
                    return (key, false)
                }
            }
            return nil
        case .p2sh:
            // Only P2SH-P2WPKH counts: a scriptSig that pushes exactly a v0 20-byte witness program.
            guard scriptSig.count == 23, scriptSig[0] == 0x16,
                Script(scriptSig.dropFirst()).witnessProgram.map({
                    $0.version == 0 && $0.program.count == 20
                }) == true
            else { return nil }
            return compressedKey(witness.last).map { ($0, false) }
        case .p2wpkh:
            return compressedKey(witness.last).map { ($0, false) }
        case .p2tr(let outputKey):
            var stack = witness
            guard !stack.isEmpty else { return nil }
            if stack.count > 1, stack.last?.first == 0x50 { stack.removeLast() }  // the annex
            if stack.count > 1, let control = stack.last, control.count >= 33, Array(control[1..<33]) == numsInternalKey
            {
                return nil
            }
            return (outputKey.evenPublicKey, true)
        default:
            return nil
        }
    }

    private static func compressedKey(_ bytes: [UInt8]?) -> PublicKey? {
        guard let bytes, bytes.count == 33, bytes[0] == 0x02 || bytes[0] == 0x03 else { return nil }
        return try? PublicKey(serialized: bytes)
    }

    /// The 36-byte serialization (txid, little-endian index) of the lexicographically smallest outpoint.
    public static func smallestOutpoint(_ outpoints: [OutPoint]) -> [UInt8]? {
        outpoints.map { outpoint in
            var writer = ByteWriter()
            outpoint.encode(to: &writer)
            return writer.bytes
        }.min { $0.lexicographicallyPrecedes($1) }
    }

    /// input_hash = hash_BIP0352/Inputs(outpoint_L ‖ A), as a scalar.
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` without outpoints or when the hash is not a valid scalar.
    public static func inputHash(outpoints: [OutPoint], inputKeySum: PublicKey) throws(SilentPaymentError) -> [UInt8] {
        guard let smallest = smallestOutpoint(outpoints) else {
            throw .derivationFailed("the transaction has no inputs")
        }
        return inputsTag.hash(smallest + inputKeySum.compressed)
    }

    /// The output key P_k = B_m + hash_BIP0352/SharedSecret(input_hash·share ‖ k)·G, from an ECDH share (a·B_scan,
    /// summed over the eligible inputs) and the input hash.
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` when a tweak falls outside the group (negligible).
    public static func outputKey(ecdhShare: PublicKey, inputHash: [UInt8], spendKey: PublicKey, k: UInt32)
        throws(SilentPaymentError) -> XOnlyPublicKey
    {
        do {
            let shared = try ecdhShare.multiplied(by: inputHash)
            let tweak = sharedSecretTag.hash(shared.compressed + bigEndian(k))
            return try spendKey.adding(tweak: tweak).xOnly.key
        } catch {
            throw .derivationFailed("a BIP352 tweak is outside the group")
        }
    }

    /// The P2TR script of an output key.
    public static func script(outputKey: XOnlyPublicKey) -> Script { Script([0x51, 0x20] + outputKey.bytes) }

    /// The sum a of the eligible inputs' private keys, each taproot key negated when its point has odd y.
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` when there are none or they sum to zero.
    public static func privateKeySum(_ keys: [(key: PrivateKey, isTaproot: Bool)]) throws(SilentPaymentError)
        -> PrivateKey
    {
        var sum: PrivateKey?
        for (key, isTaproot) in keys {
            let adjusted = isTaproot && key.publicKey.xOnly.parityIsOdd ? key.negated() : key
            if let current = sum {
                do { sum = try current.adding(secretTweak: adjusted.secret) } catch {
                    // An intermediate sum of zero: keep the next key alone and go on (BIP352 only fails at the end).
                    sum = nil
                    continue
                }
            } else {
                sum = adjusted
            }
        }
        guard let sum else { throw .derivationFailed("the inputs' private keys sum to zero or none counts") }
        return sum
    }

    /// BIP352 "Creating outputs": the x-only output keys for `recipients`, in groups by scan key (k counted in the
    /// order the recipients are given), from the eligible inputs' private keys and all the transaction's outpoints.
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` (no eligible input, a zero key sum, more than K_max outputs
    ///   for one scan key).
    public static func createOutputs(
        inputKeys: [(key: PrivateKey, isTaproot: Bool)], outpoints: [OutPoint], recipients: [SilentPaymentAddress]
    ) throws(SilentPaymentError) -> [(recipient: Int, key: XOnlyPublicKey)] {
        let a = try privateKeySum(inputKeys)
        let hash = try inputHash(outpoints: outpoints, inputKeySum: a.publicKey)
        var groups: [(scan: PublicKey, members: [Int])] = []
        for (index, recipient) in recipients.enumerated() {
            if let group = groups.firstIndex(where: { $0.scan == recipient.scanKey }) {
                groups[group].members.append(index)
            } else {
                groups.append((recipient.scanKey, [index]))
            }
        }
        try checkGroupSizes(recipients)
        var outputs: [(recipient: Int, key: XOnlyPublicKey)] = []
        for group in groups {
            let share: PublicKey
            do { share = try group.scan.multiplied(by: a) } catch { throw .derivationFailed("the ECDH share failed") }
            for (k, member) in group.members.enumerated() {
                outputs.append(
                    (
                        member,
                        try outputKey(
                            ecdhShare: share, inputHash: hash, spendKey: recipients[member].spendKey, k: UInt32(k))
                    ))
            }
        }
        return outputs
    }

    /// K_max: no scan key may be paid by more than `maxRecipientsPerGroup` outputs of one transaction.
    ///
    /// - Throws: `SilentPaymentError.tooManyOutputs` naming the first address of the group that is too large.
    public static func checkGroupSizes(_ recipients: [SilentPaymentAddress]) throws(SilentPaymentError) {
        var counts: [PublicKey: Int] = [:]
        for recipient in recipients { counts[recipient.scanKey, default: 0] += 1 }
        for recipient in recipients {
            if let count = counts[recipient.scanKey], count > maxRecipientsPerGroup {
                throw .tooManyOutputs(count: count, recipient: recipient.encoded)
            }
        }
    }

    /// hash_BIP0352/Label(b_scan ‖ m), the label tweak.
    public static func labelTweak(scanPrivateKey: PrivateKey, label: UInt32) -> [UInt8] {
        var hasher = labelTag.hasher()
        hasher.update(scanPrivateKey.secret)
        hasher.update(bigEndian(label))
        return hasher.finalize()
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
