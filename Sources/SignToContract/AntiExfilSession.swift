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

    /// Whether `psbt` is the signer's first answer: a signer commitment for one of our keys and no signature yet.
    public func isCommitAnswer(_ psbt: PSBT) -> Bool {
        let committed = entries.contains { entry in
            psbt.inputs.indices.contains(entry.input)
                && AntiExfilPSBT.value(
                    .signerCommitment, publicKey: (try? [UInt8](hex: entry.publicKey)) ?? [],
                    in: psbt.inputs[entry.input].map) != nil
        }
        let signed = entries.contains { entry in
            psbt.inputs.indices.contains(entry.input)
                && psbt.inputs[entry.input].partialSignatures.contains {
                    $0.publicKey.compressed.hexString == entry.publicKey
                }
        }
        return committed && !signed
    }

    /// Records the signer's commitments from its first answer; the PSBT with the entropy revealed.
    ///
    /// The entropy is revealed for each key the signer committed for. A retry (a second first answer) must bring the same commitments.
    ///
    /// - Throws: `AntiExfilError.commitmentChanged` (refused) when a commitment differs from the one recorded,
    ///   `.malformedField` when one is not a point.
    public mutating func reveal(_ answer: PSBT) throws -> PSBT {
        var result = answer
        for position in entries.indices {
            let entry = entries[position]
            guard result.inputs.indices.contains(entry.input), let key = (try? [UInt8](hex: entry.publicKey)),
                let value = AntiExfilPSBT.value(.signerCommitment, publicKey: key, in: result.inputs[entry.input].map)
            else { continue }
            guard let point = try? PublicKey(serialized: value), value.count == 33 else {
                throw AntiExfilError.malformedField("signer commitment")
            }
            if let known = entry.signerCommitment, known != point.compressed.hexString {
                throw AntiExfilError.commitmentChanged(input: entry.input)
            }
            entries[position].signerCommitment = point.compressed.hexString
            AntiExfilPSBT.set(
                .hostEntropy, publicKey: key, value: (try? [UInt8](hex: entry.entropy)) ?? [],
                in: &result.inputs[entry.input].map)
        }
        rounds += 1
        return result
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
