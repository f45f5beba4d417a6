import BitcoinCrypto

extension SighashCache {
    /// The BIP143 signature hash of segwit v0 input `index`, spending `amount`, with `scriptCode` (for P2WPKH the
    /// P2PKH script of the key hash; for P2WSH the witness script from the last executed OP_CODESEPARATOR).
    ///
    /// - Throws: `SighashError.inputIndexOutOfRange`.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0143.mediawiki
    public mutating func segwitV0SignatureHash(
        inputIndex index: Int, scriptCode: Script, amount: Amount, type: SighashType
    ) throws(SighashError) -> [UInt8] {
        try SHA256.doubleHash(segwitV0Preimage(inputIndex: index, scriptCode: scriptCode, amount: amount, type: type))
    }

    /// The BIP143 preimage that `segwitV0SignatureHash` hashes.
    ///
    /// - Throws: `SighashError.inputIndexOutOfRange`.
    public mutating func segwitV0Preimage(
        inputIndex index: Int, scriptCode: Script, amount: Amount, type: SighashType
    ) throws(SighashError) -> [UInt8] {
        try checkIndex(index)
        let tx = transaction
        let hashes = sharedHashes()
        let zero = [UInt8](repeating: 0, count: 32)
        var writer = ByteWriter(capacity: 156 + scriptCode.bytes.count)
        writer.write(tx.version)
        writer.write(type.anyoneCanPay ? zero : SHA256.hash(hashes.prevouts))
        writer.write(type.anyoneCanPay || type.isSingle || type.isNone ? zero : SHA256.hash(hashes.sequences))
        let input = tx.inputs[index]
        input.previousOutput.encode(to: &writer)
        writer.writeVarBytes(scriptCode.bytes)
        writer.write(amount.sats)
        writer.write(input.sequence.rawValue)
        if !type.isSingle && !type.isNone {
            writer.write(SHA256.hash(hashes.outputs))
        } else if type.isSingle, index < tx.outputs.count {
            writer.write(SHA256.doubleHash(tx.outputs[index].serialized()))
        } else {
            writer.write(zero)
        }
        writer.write(tx.lockTime.rawValue)
        writer.write(type.rawValue)
        return writer.bytes
    }
}
