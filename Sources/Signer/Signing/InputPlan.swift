import Bitcoin
import BitcoinCrypto
import SignToContract

/// A private key the signer will use on one input, and where its signature goes.
enum SigningKey {
    /// An ECDSA key for `publicKey` (the bytes as the PSBT names them).
    case ecdsa(PrivateKey, publicKeyBytes: [UInt8])
    /// The taproot key path: the tweaked output key's private key.
    case taprootKeyPath(TaprootKeyPair)
    /// A taproot script path: the key for `xOnly` in the leaf with hash `leafHash`.
    case taprootScriptPath(PrivateKey, xOnly: XOnlyPublicKey, leafHash: TapNodeHash)
}

/// What one input spends and how it is signed, worked out from its UTXO and scripts with BIP174's signer checks.
struct InputPlan {
    enum Kind: Equatable { case legacy, segwitV0, taproot }

    let index: Int
    let input: PSBTInput
    let utxo: TxOut
    let kind: Kind
    /// The script code signed (legacy: the script; segwit v0: P2PKH of the key hash or the witness script).
    let scriptCode: Script
    let sighashType: SighashType
    let hasPreviousTransaction: Bool

    /// The plan for input `index`, or nil for a finalized input or one without a UTXO.
    ///
    /// - Throws: `PSBTError.signerCheckFailed` for the BIP174 signer-check failures.
    init?(psbt: PSBT, transaction: Transaction, index: Int) throws(PSBTError) {
        let input = psbt.inputs[index]
        guard !input.isFinalized else { return nil }
        let outpoint = transaction.inputs[index].previousOutput
        let fromPrevious = input.nonWitnessUTXO.flatMap { previous in
            Int(outpoint.vout) < previous.outputs.count ? previous.outputs[Int(outpoint.vout)] : nil
        }
        let witnessUTXO = input.witnessUTXO
        if let fromPrevious, let witnessUTXO, fromPrevious != witnessUTXO {
            throw .signerCheckFailed(
                input: index, reason: "the witness UTXO does not match the previous transaction's output (amount lie)")
        }
        guard let utxo = fromPrevious ?? witnessUTXO else { return nil }
        self.index = index
        self.input = input
        self.utxo = utxo
        self.hasPreviousTransaction = fromPrevious != nil

        var inner = utxo.scriptPubKey
        var wrapped = false
        if case .p2sh(let hash) = inner.template {
            guard let redeem = input.redeemScript else {
                throw .signerCheckFailed(input: index, reason: "P2SH input without a redeemScript")
            }
            guard ScriptHash(redeem) == hash else {
                throw .signerCheckFailed(
                    input: index,
                    reason: witnessUTXO == nil
                        ? "redeemScript with non-witness UTXO does not match the scriptPubKey"
                        : "redeemScript with witness UTXO does not match the scriptPubKey")
            }
            inner = redeem
            wrapped = true
        }
        switch inner.template {
        case .p2wpkh(let hash):
            kind = .segwitV0
            scriptCode = .p2pkh(hash)
        case .p2wsh(let hash):
            guard let witnessScript = input.witnessScript else {
                throw .signerCheckFailed(input: index, reason: "P2WSH input without a witnessScript")
            }
            guard WitnessScriptHash(witnessScript) == hash else {
                throw .signerCheckFailed(
                    input: index,
                    reason: wrapped
                        ? "witnessScript with witness UTXO does not match the redeemScript"
                        : "witnessScript does not match the scriptPubKey")
            }
            kind = .segwitV0
            scriptCode = witnessScript
        case .p2tr:
            guard !wrapped else { throw .signerCheckFailed(input: index, reason: "taproot inside P2SH is unspendable") }
            kind = .taproot
            scriptCode = inner
        case .witnessProgram:
            throw .signerCheckFailed(input: index, reason: "unknown witness version")
        default:
            if witnessUTXO != nil, fromPrevious == nil {
                throw .signerCheckFailed(input: index, reason: "A Witness UTXO is provided for a non-witness input")
            }
            kind = .legacy
            scriptCode = inner
        }
        sighashType = SighashType(rawValue: input.sighashType ?? (kind == .taproot ? 0 : 1))
    }

    /// The keys `provider` holds for this input, each checked against the public key the PSBT names.
    func signingKeys(_ provider: some KeyProvider) throws(PSBTError) -> [SigningKey] {
        kind == .taproot ? try taprootKeys(provider) : try ecdsaKeys(provider)
    }

    private func ask(_ provider: some KeyProvider, _ request: KeyRequest) -> PrivateKey? {
        (try? provider.privateKey(for: request)) ?? nil
    }

    private func ecdsaKeys(_ provider: some KeyProvider) throws(PSBTError) -> [SigningKey] {
        let scriptKeys = Self.keysCommitted(by: scriptCode)
        var keys: [SigningKey] = []
        var seen: Set<[UInt8]> = []
        for entry in input.map.entries(PSBTKeyType.Input.bip32Derivation) {
            guard scriptKeys.matches(entry.keyData), let publicKey = try? PublicKey(serialized: entry.keyData),
                let origin = KeyOrigin(psbtBytes: entry.value),
                let privateKey = ask(provider, .bip32(publicKey: publicKey, origin: origin)),
                privateKey.publicKey == publicKey, seen.insert(entry.keyData).inserted
            else { continue }
            keys.append(.ecdsa(privateKey, publicKeyBytes: entry.keyData))
        }
        for keyBytes in scriptKeys.keys where !seen.contains(keyBytes) {
            guard let publicKey = try? PublicKey(serialized: keyBytes),
                let privateKey = ask(provider, .publicKey(publicKey)), privateKey.publicKey == publicKey
            else { continue }
            seen.insert(keyBytes)
            keys.append(.ecdsa(privateKey, publicKeyBytes: keyBytes))
        }
        return keys
    }

    private func taprootKeys(_ provider: some KeyProvider) throws(PSBTError) -> [SigningKey] {
        guard case .p2tr(let outputKey) = utxo.scriptPubKey.template else { return [] }
        var keys: [SigningKey] = []
        let leaves = input.tapLeafScripts.map { TapLeaf(tapscript: $0.script) }
        for derivation in input.tapBIP32Derivations {
            guard let privateKey = ask(provider, .taprootBIP32(key: derivation.key, origin: derivation.origin)),
                privateKey.publicKey.xOnly.key == derivation.key
            else { continue }
            if derivation.key == input.tapInternalKey || (derivation.leafHashes.isEmpty && input.tapInternalKey == nil)
            {
                if let pair = try? provider.keyPathPair(
                    privateKey, at: derivation.origin, merkleRoot: input.tapMerkleRoot),
                    pair.outputKey == outputKey
                {
                    keys.append(.taprootKeyPath(pair))
                }
            }
            for leafHash in derivation.leafHashes {
                guard let leaf = leaves.first(where: { $0.hash.bytes == leafHash }),
                    Self.keysCommitted(by: leaf.script).matches(derivation.key.bytes)
                else { continue }
                keys.append(.taprootScriptPath(privateKey, xOnly: derivation.key, leafHash: leaf.hash))
            }
        }
        return keys
    }

    /// Signs with `key` and records the signature in `map`.
    func sign(
        with key: SigningKey, into map: inout PSBTMap, cache: inout SighashCache, grindLowR: Bool, commitOnly: Bool
    ) throws(PSBTError) {
        do {
            switch key {
            case .taprootKeyPath where commitOnly, .taprootScriptPath where commitOnly: return
            case .ecdsa(let privateKey, let publicKeyBytes):
                let digest: [UInt8] =
                    kind == .legacy
                    ? try cache.legacySignatureHash(inputIndex: index, scriptCode: scriptCode, type: sighashType)
                    : try cache.segwitV0SignatureHash(
                        inputIndex: index, scriptCode: scriptCode, amount: utxo.value, type: sighashType)
                // Anti-exfil (SignToContract): round 1 writes the signer commitment and no signature.
                guard
                    let signature = try AntiExfilPSBT.sign(
                        privateKey, publicKey: publicKeyBytes, digest: digest, map: &map, grindLowR: grindLowR)
                else { return }
                map.set(
                    PSBTKeyType.Input.partialSig, keyData: publicKeyBytes,
                    value: signature.der + [UInt8(sighashType.rawValue & 0xFF)])
            case .taprootKeyPath(let pair):
                let digest = try cache.taprootSignatureHash(inputIndex: index, type: sighashType)
                let signature = try pair.signSchnorr(message: digest)
                map.set(
                    PSBTKeyType.Input.tapKeySig,
                    value: signature.bytes + (sighashType.rawValue == 0 ? [] : [UInt8(sighashType.rawValue)]))
            case .taprootScriptPath(let privateKey, let xOnly, let leafHash):
                let digest = try cache.taprootSignatureHash(inputIndex: index, type: sighashType, leafHash: leafHash)
                let signature = try privateKey.signSchnorr(message: digest)
                map.set(
                    PSBTKeyType.Input.tapScriptSig, keyData: xOnly.bytes + leafHash.bytes,
                    value: signature.bytes + (sighashType.rawValue == 0 ? [] : [UInt8(sighashType.rawValue)]))
            }
        } catch let error as SighashError {
            throw .signerCheckFailed(input: index, reason: "cannot compute the signature hash: \(error)")
        } catch {
            throw .signerCheckFailed(input: index, reason: "signing failed: \(error)")
        }
    }

    /// The public keys a script commits to: pushed keys (P2PK, multisig, tapscript) and key hashes (P2PKH).
    struct CommittedKeys {
        var keys: [[UInt8]] = []
        var hashes: [[UInt8]] = []
        func matches(_ key: [UInt8]) -> Bool {
            keys.contains(key) || hashes.contains(Hash160.hash(key))
        }
    }

    static func keysCommitted(by script: Script) -> CommittedKeys {
        var result = CommittedKeys()
        if case .p2pkh(let hash) = script.template {
            result.hashes.append(hash.bytes)
            return result
        }
        for operation in (try? script.operations()) ?? [] {
            if let data = operation.data, data.count == 33 || data.count == 65 || data.count == 32 {
                result.keys.append(data)
            }
        }
        return result
    }
}
