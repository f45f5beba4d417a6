extension PSBT {
    /// This PSBT as version 2 (BIP370): the unsigned transaction spread into per-input and per-output fields.
    ///
    /// - Throws: `PSBTError` when the unsigned transaction can't be read.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0370.mediawiki
    public func convertedToVersion2() throws(PSBTError) -> PSBT {
        if version == 2 { return self }
        let transaction = try unsignedTransaction()
        var result = self
        result.version = 2
        result.global.remove(PSBTKeyType.Global.unsignedTx)
        result.global.set(
            PSBTKeyType.Global.txVersion, value: PSBT.uint32Bytes(UInt32(bitPattern: transaction.version)))
        result.global.set(PSBTKeyType.Global.fallbackLocktime, value: PSBT.uint32Bytes(transaction.lockTime.rawValue))
        result.global.set(PSBTKeyType.Global.inputCount, value: Self.compactSize(transaction.inputs.count))
        result.global.set(PSBTKeyType.Global.outputCount, value: Self.compactSize(transaction.outputs.count))
        result.global.set(PSBTKeyType.Global.version, value: PSBT.uint32Bytes(2))
        for (index, input) in transaction.inputs.enumerated() {
            result.inputs[index].map.set(PSBTKeyType.Input.previousTxid, value: input.previousOutput.txid.bytes)
            result.inputs[index].map.set(
                PSBTKeyType.Input.outputIndex, value: PSBT.uint32Bytes(input.previousOutput.vout))
            result.inputs[index].map.set(PSBTKeyType.Input.sequence, value: PSBT.uint32Bytes(input.sequence.rawValue))
        }
        for (index, output) in transaction.outputs.enumerated() {
            result.outputs[index].map.set(PSBTKeyType.Output.amount, value: Self.uint64Bytes(output.value.sats))
            result.outputs[index].map.set(PSBTKeyType.Output.script, value: output.scriptPubKey.bytes)
        }
        result.canonicalize()
        return result
    }

    /// This PSBT as version 0 (BIP174): the transaction assembled (with BIP370's locktime) into the global map.
    ///
    /// - Throws: `PSBTError.conflictingLocktimes` or a missing v2 field; `.fieldNotAllowed` for a PSBT paying a
    ///   silent-payment address (BIP375 fields exist in version 2 only).
    public func convertedToVersion0() throws(PSBTError) -> PSBT {
        if version == 0 { return self }
        for (index, output) in outputs.enumerated() where output.map.contains(PSBTKeyType.Output.spV0Info) {
            throw .fieldNotAllowed(field: "PSBT_OUT_SP_V0_INFO", version: 0, location: .output(index))
        }
        let transaction = try unsignedTransaction()
        var result = self
        result.version = 0
        for type in [
            PSBTKeyType.Global.txVersion, PSBTKeyType.Global.fallbackLocktime, PSBTKeyType.Global.inputCount,
            PSBTKeyType.Global.outputCount, PSBTKeyType.Global.txModifiable, PSBTKeyType.Global.version,
        ] {
            result.global.remove(type)
        }
        result.global.set(PSBTKeyType.Global.unsignedTx, value: transaction.serialized(includingWitness: false))
        for index in result.inputs.indices {
            for type in [
                PSBTKeyType.Input.previousTxid, PSBTKeyType.Input.outputIndex, PSBTKeyType.Input.sequence,
                PSBTKeyType.Input.requiredTimeLocktime, PSBTKeyType.Input.requiredHeightLocktime,
            ] {
                result.inputs[index].map.remove(type)
            }
        }
        for index in result.outputs.indices {
            result.outputs[index].map.remove(PSBTKeyType.Output.amount)
            result.outputs[index].map.remove(PSBTKeyType.Output.script)
        }
        result.canonicalize()
        return result
    }

    /// The PSBT cut down to what a coordinator needs to combine this signer's work: the transaction, and per input only
    /// signatures (partial, taproot key and script path) or final scripts.
    ///
    /// Unknown and proprietary fields are
    /// dropped too; use the full PSBT to keep them.
    public func trimmedForCoordinator() -> PSBT {
        var result = self
        let keepGlobal: Set<UInt64> = [
            PSBTKeyType.Global.unsignedTx, PSBTKeyType.Global.txVersion, PSBTKeyType.Global.fallbackLocktime,
            PSBTKeyType.Global.inputCount, PSBTKeyType.Global.outputCount, PSBTKeyType.Global.txModifiable,
            PSBTKeyType.Global.version,
        ]
        result.global.entries.removeAll { !keepGlobal.contains($0.keyType) }
        let keepInput: Set<UInt64> = [
            PSBTKeyType.Input.partialSig, PSBTKeyType.Input.tapKeySig, PSBTKeyType.Input.tapScriptSig,
            PSBTKeyType.Input.finalScriptSig, PSBTKeyType.Input.finalScriptWitness, PSBTKeyType.Input.previousTxid,
            PSBTKeyType.Input.outputIndex, PSBTKeyType.Input.sequence, PSBTKeyType.Input.requiredTimeLocktime,
            PSBTKeyType.Input.requiredHeightLocktime,
        ]
        for index in result.inputs.indices {
            result.inputs[index].map.entries.removeAll { !keepInput.contains($0.keyType) }
        }
        let keepOutput: Set<UInt64> = [PSBTKeyType.Output.amount, PSBTKeyType.Output.script]
        for index in result.outputs.indices {
            result.outputs[index].map.entries.removeAll { !keepOutput.contains($0.keyType) }
        }
        result.canonicalize()
        return result
    }

    static func compactSize(_ value: Int) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeCompactSize(value)
        return writer.bytes
    }

    static func uint64Bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
