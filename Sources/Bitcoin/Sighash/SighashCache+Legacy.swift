import BitcoinCrypto

extension SighashCache {
    /// The legacy (pre-segwit) signature hash of input `index`, as Bitcoin Core's SignatureHash computes it for
    /// SigVersion::BASE: OP_CODESEPARATORs are removed from `scriptCode`, and SIGHASH_SINGLE without a matching
    /// output gives the value 1 (the historical bug that signs the number one).
    ///
    /// `scriptCode` is the script being executed from the last executed OP_CODESEPARATOR (the previous scriptPubKey,
    /// or the redeem script for P2SH). A verifier removes the signature from it first with `Script.findAndDelete`.
    ///
    /// - Throws: `SighashError.inputIndexOutOfRange`.
    /// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/script/interpreter.cpp (SignatureHash)
    public func legacySignatureHash(inputIndex index: Int, scriptCode: Script, type: SighashType) throws(SighashError)
        -> [UInt8]
    {
        try checkIndex(index)
        let tx = transaction
        if type.isSingle, index >= tx.outputs.count {
            return [1] + [UInt8](repeating: 0, count: 31)
        }
        var writer = ByteWriter(capacity: 256)
        writer.write(tx.version)
        let inputIndexes = type.anyoneCanPay ? [index] : Array(tx.inputs.indices)
        writer.writeCompactSize(inputIndexes.count)
        let code = scriptCode.removingCodeSeparators()
        for i in inputIndexes {
            let input = tx.inputs[i]
            input.previousOutput.encode(to: &writer)
            writer.writeVarBytes(i == index ? code : [])
            writer.write(i != index && (type.isNone || type.isSingle) ? UInt32(0) : input.sequence.rawValue)
        }
        if type.isNone {
            writer.writeCompactSize(0)
        } else if type.isSingle {
            writer.writeCompactSize(index + 1)
            for _ in 0..<index {
                writer.write(UInt64.max)
                writer.writeCompactSize(0)
            }
            tx.outputs[index].encode(to: &writer)
        } else {
            writer.writeCompactSize(tx.outputs.count)
            for output in tx.outputs { output.encode(to: &writer) }
        }
        writer.write(tx.lockTime.rawValue)
        writer.write(type.rawValue)
        return SHA256.doubleHash(writer.bytes)
    }
}

extension Script {
    /// The script bytes with every OP_CODESEPARATOR removed (a truncated tail is kept as it is, as Core does).
    func removingCodeSeparators() -> [UInt8] {
        let (operations, _) = operationsWithOffsets()
        guard operations.contains(where: { $0.operation == .op(.codeSeparator) }) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copiedUpTo = 0
        for element in operations where element.operation == .op(.codeSeparator) {
            out += bytes[copiedUpTo..<element.offset]
            copiedUpTo = element.offset + 1
        }
        out += bytes[copiedUpTo...]
        return out
    }

    /// This script with every occurrence of `pattern` that starts at an operation boundary removed, as Bitcoin
    /// Core's FindAndDelete does with a signature push before a legacy CHECKSIG hashes the script code.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/script/interpreter.cpp (FindAndDelete)
    public func findAndDelete(_ pattern: Script) -> Script {
        let b = pattern.bytes
        guard !b.isEmpty else { return self }
        var result: [UInt8] = []
        var found = 0
        var pc = 0
        var pc2 = 0
        while true {
            result += bytes[pc2..<pc]
            while bytes.count - pc >= b.count, bytes[pc..<pc + b.count].elementsEqual(b) {
                pc += b.count
                found += 1
            }
            pc2 = pc
            guard pc < bytes.count, let (_, next) = try? Script.operation(in: bytes, at: pc) else { break }
            pc = next
        }
        guard found > 0 else { return self }
        result += bytes[pc2...]
        return Script(result)
    }
}
