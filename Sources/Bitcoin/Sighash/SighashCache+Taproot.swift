import BitcoinCrypto

extension SighashCache {
    /// The BIP341 signature hash of input `index`: key path when `leafHash` is nil, else script path (BIP342) for
    /// the leaf with that hash and the position of the last executed OP_CODESEPARATOR (0xffffffff for none).
    ///
    /// - Throws: `SighashError.invalidTaprootSighashType`, `.missingSpentOutputs`, `.singleWithoutOutput`,
    ///   `.invalidAnnex` or `.inputIndexOutOfRange`.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#common-signature-message
    public mutating func taprootSignatureHash(
        inputIndex index: Int, type: SighashType, annex: [UInt8]? = nil, leafHash: TapNodeHash? = nil,
        codeSeparatorPosition: UInt32 = 0xFFFF_FFFF
    ) throws(SighashError) -> [UInt8] {
        var hasher = TaggedHash.tapSighash.hasher()
        hasher.update(
            try taprootSignatureMessage(
                inputIndex: index, type: type, annex: annex, leafHash: leafHash,
                codeSeparatorPosition: codeSeparatorPosition))
        return hasher.finalize()
    }

    /// The BIP341 SigMsg (with the leading epoch byte 0x00 and, for the script path, the BIP342 extension).
    ///
    /// - Throws: as `taprootSignatureHash`.
    public mutating func taprootSignatureMessage(
        inputIndex index: Int, type: SighashType, annex: [UInt8]? = nil, leafHash: TapNodeHash? = nil,
        codeSeparatorPosition: UInt32 = 0xFFFF_FFFF
    ) throws(SighashError) -> [UInt8] {
        try checkIndex(index)
        guard type.isValidForTaproot else { throw .invalidTaprootSighashType(type.rawValue) }
        let tx = transaction
        guard let spentOutputs, spentOutputs.count == tx.inputs.count else {
            throw .missingSpentOutputs(needed: tx.inputs.count, given: spentOutputs?.count ?? 0)
        }
        if let annex, annex.first != 0x50 { throw .invalidAnnex }
        if type.isSingle, index >= tx.outputs.count { throw .singleWithoutOutput(index: index) }

        var writer = ByteWriter(capacity: 256)
        writer.write(UInt8(0x00))  // epoch
        writer.write(UInt8(truncatingIfNeeded: type.rawValue))
        writer.write(tx.version)
        writer.write(tx.lockTime.rawValue)
        if !type.anyoneCanPay {
            let shared = sharedHashes()
            let spent = spentOutputHashes(spentOutputs)
            writer.write(shared.prevouts)
            writer.write(spent.amounts)
            writer.write(spent.scriptPubKeys)
            writer.write(shared.sequences)
        }
        if !type.isNone && !type.isSingle {
            writer.write(sharedHashes().outputs)
        }
        writer.write(UInt8((leafHash == nil ? 0 : 2) + (annex == nil ? 0 : 1)))
        if type.anyoneCanPay {
            let input = tx.inputs[index]
            input.previousOutput.encode(to: &writer)
            spentOutputs[index].encode(to: &writer)
            writer.write(input.sequence.rawValue)
        } else {
            writer.write(UInt32(index))
        }
        if let annex {
            var annexWriter = ByteWriter(capacity: annex.count + 9)
            annexWriter.writeVarBytes(annex)
            writer.write(SHA256.hash(annexWriter.bytes))
        }
        if type.isSingle {
            writer.write(SHA256.hash(tx.outputs[index].serialized()))
        }
        if let leafHash {
            writer.write(leafHash.bytes)
            writer.write(UInt8(0x00))  // key_version
            writer.write(codeSeparatorPosition)
        }
        return writer.bytes
    }
}
