import BitcoinCrypto

/// The BIP174 Updater: typed setters for the fields a coordinator adds before signers see the PSBT. Each keeps the map
/// in Bitcoin Core's order.
extension PSBT {
    /// Sets the sighash type that input `index` asks signers to use (PSBT_IN_SIGHASH_TYPE).
    public mutating func setSighashType(_ type: SighashType, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.sighashType, value: PSBT.uint32Bytes(type.rawValue)) }
    }

    /// Sets the full previous transaction of input `index` (PSBT_IN_NON_WITNESS_UTXO).
    public mutating func setNonWitnessUTXO(_ transaction: Transaction, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.nonWitnessUTXO, value: transaction.serialized()) }
    }

    /// Sets the spent output of input `index` (PSBT_IN_WITNESS_UTXO).
    public mutating func setWitnessUTXO(_ output: TxOut, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.witnessUTXO, value: output.serialized()) }
    }

    /// Sets the redeem script of input `index`.
    public mutating func setRedeemScript(_ script: Script, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.redeemScript, value: script.bytes) }
    }

    /// Sets the witness script of input `index`.
    public mutating func setWitnessScript(_ script: Script, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.witnessScript, value: script.bytes) }
    }

    /// Adds a BIP32 derivation of `key` to input `index`.
    public mutating func addBIP32Derivation(_ key: PublicKey, origin: KeyOrigin, input index: Int) {
        update(input: index) {
            $0.set(PSBTKeyType.Input.bip32Derivation, keyData: key.compressed, value: origin.psbtBytes)
        }
    }

    /// Sets the taproot internal key of input `index`.
    public mutating func setTapInternalKey(_ key: XOnlyPublicKey, input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.tapInternalKey, value: key.bytes) }
    }

    /// Sets the taproot merkle root of input `index`.
    public mutating func setTapMerkleRoot(_ root: [UInt8], input index: Int) {
        update(input: index) { $0.set(PSBTKeyType.Input.tapMerkleRoot, value: root) }
    }

    /// Adds a taproot BIP32 derivation of `key` (with the leaves it signs for) to input `index`.
    public mutating func addTapBIP32Derivation(
        _ key: XOnlyPublicKey, leafHashes: [[UInt8]] = [], origin: KeyOrigin, input index: Int
    ) {
        update(input: index) {
            $0.set(
                PSBTKeyType.Input.tapBIP32Derivation, keyData: key.bytes,
                value: PSBT.tapDerivationValue(leafHashes, origin))
        }
    }

    /// Adds a taproot leaf script with its control block to input `index`.
    public mutating func addTapLeafScript(_ script: Script, leafVersion: UInt8, controlBlock: [UInt8], input index: Int)
    {
        update(input: index) {
            $0.set(PSBTKeyType.Input.tapLeafScript, keyData: controlBlock, value: script.bytes + [leafVersion])
        }
    }

    /// Sets the redeem script of output `index` (P2SH change).
    public mutating func setRedeemScript(_ script: Script, output index: Int) {
        update(output: index) { $0.set(PSBTKeyType.Output.redeemScript, value: script.bytes) }
    }

    /// Sets the witness script of output `index` (P2WSH change).
    public mutating func setWitnessScript(_ script: Script, output index: Int) {
        update(output: index) { $0.set(PSBTKeyType.Output.witnessScript, value: script.bytes) }
    }

    /// Adds a BIP32 derivation of `key` to output `index` (so signers can verify change).
    public mutating func addBIP32Derivation(_ key: PublicKey, origin: KeyOrigin, output index: Int) {
        update(output: index) {
            $0.set(PSBTKeyType.Output.bip32Derivation, keyData: key.compressed, value: origin.psbtBytes)
        }
    }

    /// Sets the taproot internal key of output `index`.
    public mutating func setTapInternalKey(_ key: XOnlyPublicKey, output index: Int) {
        update(output: index) { $0.set(PSBTKeyType.Output.tapInternalKey, value: key.bytes) }
    }

    /// Adds a taproot BIP32 derivation of `key` to output `index`.
    public mutating func addTapBIP32Derivation(
        _ key: XOnlyPublicKey, leafHashes: [[UInt8]] = [], origin: KeyOrigin, output index: Int
    ) {
        update(output: index) {
            $0.set(
                PSBTKeyType.Output.tapBIP32Derivation, keyData: key.bytes,
                value: PSBT.tapDerivationValue(leafHashes, origin))
        }
    }

    /// Sets the taproot tree of output `index`: leaves as (depth, leaf version, script) in depth-first order.
    public mutating func setTapTree(_ leaves: [(depth: UInt8, leafVersion: UInt8, script: Script)], output index: Int) {
        var writer = ByteWriter()
        for leaf in leaves {
            writer.write(leaf.depth)
            writer.write(leaf.leafVersion)
            writer.writeVarBytes(leaf.script.bytes)
        }
        let value = writer.bytes
        update(output: index) { $0.set(PSBTKeyType.Output.tapTree, value: value) }
    }

    /// Adds a global xpub with its key origin (PSBT_GLOBAL_XPUB), as multisig coordinators do.
    public mutating func addGlobalXpub(_ xpub: ExtendedPublicKey, origin: KeyOrigin) {
        global.set(PSBTKeyType.Global.xpub, keyData: xpub.serialized(), value: origin.psbtBytes)
        PSBTCanonicalOrder.sortGlobal(&global)
    }

    private mutating func update(input index: Int, _ body: (inout PSBTMap) -> Void) {
        body(&inputs[index].map)
        PSBTCanonicalOrder.sortInput(&inputs[index].map)
    }

    private mutating func update(output index: Int, _ body: (inout PSBTMap) -> Void) {
        body(&outputs[index].map)
        PSBTCanonicalOrder.sortOutput(&outputs[index].map)
    }

    static func tapDerivationValue(_ leafHashes: [[UInt8]], _ origin: KeyOrigin) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeCompactSize(leafHashes.count)
        for hash in leafHashes { writer.write(hash) }
        writer.write(origin.psbtBytes)
        return writer.bytes
    }
}
