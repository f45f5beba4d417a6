public import Bitcoin
public import BitcoinCrypto

/// The host's (watcher's) side of one anti-exfil exchange, for one unsigned transaction.
///
/// The entropy it drew per input and key, and the signer commitments it received. Kept by the watcher between the rounds (its data
/// directory, `psbt/TXID.antiexfil.json`, mode 0600) and never written into a PSBT before the signer committed.
public struct AntiExfilSession: Codable, Sendable, Equatable {
    /// One input's key.
    public struct Entry: Codable, Sendable, Equatable {
        public let input: Int
        /// The 33-byte public key (hex), as the PSBT's BIP32 derivation names it.
        public let publicKey: String
        /// The host's 32 bytes of entropy (hex): secret until the signer committed.
        public let entropy: String
        /// The signer's commitment R1 (hex) once received.
        public var signerCommitment: String?
    }

    /// The unsigned transaction's txid.
    public let txid: String
    public var entries: [Entry]
    /// How many times the entropy was revealed (a retry reveals the same entropy again).
    public var rounds: Int

    /// Adds a host commitment to every key of every ECDSA input of `psbt` (taproot inputs are not covered) and
    /// returns the session that keeps the entropy.
    ///
    /// - Throws: `PSBTError` when the PSBT has no valid unsigned transaction.
    public static func begin(_ psbt: inout PSBT) throws -> AntiExfilSession {
        var entries: [Entry] = []
        for index in psbt.inputs.indices {
            let input = psbt.inputs[index]
            guard !input.isFinalized, input.witnessUTXO?.scriptPubKey.isTaproot != true else { continue }
            for (publicKey, _) in input.bip32Derivations {
                let entropy = SecureRandom.bytes(32)
                let commitment = try AntiExfil.hostCommitment(entropy: entropy)
                AntiExfilPSBT.set(
                    .hostCommitment, publicKey: publicKey.compressed, value: commitment, in: &psbt.inputs[index].map)
                entries.append(
                    Entry(input: index, publicKey: publicKey.compressed.hexString, entropy: entropy.hexString))
            }
        }
        return AntiExfilSession(txid: try psbt.unsignedTxid().hexString, entries: entries, rounds: 0)
    }

    /// The number of ECDSA keys the session covers.
    public var keyCount: Int { entries.count }

    /// Whether `psbt` is a signer's first answer: a signer commitment for one of our keys that is not signed yet
    /// (with several cosigners, each one's first answer comes after the others signed).
    public func isCommitAnswer(_ psbt: PSBT) -> Bool {
        entries.contains { committedUnsigned($0, in: psbt) != nil }
    }

    /// The signer commitment `psbt` carries for `entry` when that key is not signed in it yet.
    public func committedUnsigned(_ entry: Entry, in psbt: PSBT) -> [UInt8]? {
        guard psbt.inputs.indices.contains(entry.input), let key = try? [UInt8](hex: entry.publicKey) else {
            return nil
        }
        let input = psbt.inputs[entry.input]
        guard !input.partialSignatures.contains(where: { $0.publicKey.compressed == key }) else { return nil }
        return AntiExfilPSBT.value(.signerCommitment, publicKey: key, in: input.map)
    }

    /// Records the signer's commitments from its first answer; the PSBT with the entropy revealed.
    ///
    /// The entropy is revealed for each key the answer commits for and does not sign yet. A retry (a second first
    /// answer) must bring the same commitments; `retry` says whether one was recorded before.
    ///
    /// - Throws: `AntiExfilError.commitmentChanged` (refused) when a commitment differs from the one recorded,
    ///   `.malformedField` when one is not a point.
    public mutating func reveal(_ answer: PSBT) throws -> (psbt: PSBT, retry: Bool) {
        var result = answer
        var retry = false
        for position in entries.indices {
            let entry = entries[position]
            guard let value = committedUnsigned(entry, in: answer), let key = try? [UInt8](hex: entry.publicKey)
            else { continue }
            guard value.count == 33, let point = try? PublicKey(serialized: value) else {
                throw AntiExfilError.malformedField("signer commitment")
            }
            if let known = entry.signerCommitment {
                guard known == point.compressed.hexString else {
                    throw AntiExfilError.commitmentChanged(input: entry.input)
                }
                retry = true
            }
            entries[position].signerCommitment = point.compressed.hexString
            AntiExfilPSBT.set(
                .hostEntropy, publicKey: key, value: (try? [UInt8](hex: entry.entropy)) ?? [],
                in: &result.inputs[entry.input].map)
        }
        rounds += 1
        return (result, retry)
    }

    /// Checks every signature of our keys in `psbt` against the signer's commitment and the entropy.
    ///
    /// r must be x(R1 + t·G) and the signature valid for the input's signature hash. Returns how many were checked.
    ///
    /// - Throws: `AntiExfilError.signatureMismatch` or `.signedWithoutCommitment` (refused).
    public func verify(_ psbt: PSBT) throws -> Int {
        let transaction = try psbt.unsignedTransaction()
        var cache = SighashCache(transaction, spentOutputs: nil)
        var checked = 0
        for entry in entries where psbt.inputs.indices.contains(entry.input) {
            let input = psbt.inputs[entry.input]
            guard
                let signature = input.partialSignatures.first(where: {
                    $0.publicKey.compressed.hexString == entry.publicKey
                })
            else { continue }
            guard let opening = entry.signerCommitment.flatMap({ (try? [UInt8](hex: $0)) }),
                let commitment = try? PublicKey(serialized: opening)
            else { throw AntiExfilError.signedWithoutCommitment(input: entry.input) }
            guard let der = signature.signature.dropLast().nilIfEmpty, let parsed = try? ECDSASignature(der: der),
                let type = signature.signature.last,
                let digest = try? Self.digest(psbt, transaction, &cache, index: entry.input, type: UInt32(type)),
                AntiExfil.verify(
                    parsed, digest: digest, publicKey: signature.publicKey,
                    entropy: (try? [UInt8](hex: entry.entropy)) ?? [],
                    signerCommitment: commitment)
            else { throw AntiExfilError.signatureMismatch(input: entry.input) }
            checked += 1
        }
        return checked
    }

    /// The ECDSA signature hash of input `index` (legacy or segwit v0, P2SH-wrapped or not).
    static func digest(_ psbt: PSBT, _ transaction: Transaction, _ cache: inout SighashCache, index: Int, type: UInt32)
        throws -> [UInt8]?
    {
        let input = psbt.inputs[index]
        let outpoint = transaction.inputs[index].previousOutput
        let previous = input.nonWitnessUTXO.flatMap { tx in
            Int(outpoint.vout) < tx.outputs.count ? tx.outputs[Int(outpoint.vout)] : nil
        }
        guard let utxo = input.witnessUTXO ?? previous else { return nil }
        var inner = utxo.scriptPubKey
        if case .p2sh = inner.template, let redeem = input.redeemScript { inner = redeem }
        let sighash = SighashType(rawValue: type)
        switch inner.template {
        case .p2wpkh(let hash):
            return try cache.segwitV0SignatureHash(
                inputIndex: index, scriptCode: .p2pkh(hash), amount: utxo.value, type: sighash)
        case .p2wsh:
            guard let script = input.witnessScript else { return nil }
            return try cache.segwitV0SignatureHash(
                inputIndex: index, scriptCode: script, amount: utxo.value, type: sighash)
        default:
            return try cache.legacySignatureHash(inputIndex: index, scriptCode: inner, type: sighash)
        }
    }
}

extension Collection {
    fileprivate var nilIfEmpty: Self? { isEmpty ? nil : self }
}
