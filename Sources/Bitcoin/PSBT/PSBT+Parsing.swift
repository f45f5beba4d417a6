import BitcoinCrypto
import Codecs
import Foundation

extension PSBT {
    /// Largest PSBT accepted, as Bitcoin Core (100 MB).
    public static let maximumSize = 100_000_000

    /// Parses a binary PSBT, validating every known field (BIP174, BIP370, BIP371, BIP373) as Bitcoin Core does.
    ///
    /// - Throws: `PSBTError` naming the field and map at fault.
    public init(serialized bytes: some Collection<UInt8>) throws(PSBTError) {
        let data = Array(bytes)
        guard data.count <= Self.maximumSize else {
            throw .invalidValue(field: "PSBT", location: .global, reason: "larger than 100 MB")
        }
        var parser = PSBTParser(data)
        self = try parser.parse()
    }

    /// Parses a PSBT from base64 text (surrounding white space ignored).
    ///
    /// - Throws: `PSBTError.invalidEncoding` for text that is not base64, else as `init(serialized:)`.
    public init(base64 text: String) throws(PSBTError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = try? Base64.decode(trimmed, requirePadding: true) else { throw .invalidEncoding }
        try self.init(serialized: data)
    }

    /// Parses a PSBT given as binary, base64 or hex (as files and QR payloads come).
    ///
    /// - Throws: `PSBTError.invalidEncoding` when the bytes are none of the three, else as `init(serialized:)`.
    public init(anyEncoding bytes: [UInt8]) throws(PSBTError) {
        if bytes.starts(with: Self.magic) {
            try self.init(serialized: bytes)
            return
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("70736274ff") || text.hasPrefix("70736274FF"), let raw = try? [UInt8](hex: text) {
            try self.init(serialized: raw)
            return
        }
        if text.hasPrefix("cHNidP") {
            try self.init(base64: text)
            return
        }
        throw .invalidMagic
    }
}

/// Reads the maps of a PSBT and checks each field as it goes.
struct PSBTParser {
    private var reader: ByteReader
    private let data: [UInt8]

    init(_ data: [UInt8]) {
        self.data = data
        self.reader = ByteReader(data)
    }

    mutating func parse() throws(PSBTError) -> PSBT {
        guard (try? reader.read(count: 5)) == PSBT.magic else { throw .invalidMagic }
        let global = try readMap(.global)
        var version: UInt32 = 0
        var unsignedTx: Transaction?
        var inputCount = 0
        var outputCount = 0
        var sawTxVersion = false
        var sawInputCount = false
        var sawOutputCount = false
        for entry in global.entries {
            let location = PSBTLocation.global
            switch entry.keyType {
            case PSBTKeyType.Global.unsignedTx:
                try expectKeySize(entry, 1, "Global Unsigned TX", location)
                guard let tx = try? Transaction(legacySerialized: entry.value) else {
                    throw .invalidUnsignedTransaction(reason: "the unsigned transaction does not parse")
                }
                for input in tx.inputs where !input.scriptSig.bytes.isEmpty || !input.witness.isEmpty {
                    throw .invalidUnsignedTransaction(
                        reason: "Unsigned tx does not have empty scriptSigs and scriptWitnesses.")
                }
                unsignedTx = tx
                inputCount = tx.inputs.count
                outputCount = tx.outputs.count
            case PSBTKeyType.Global.xpub:
                try expectKeySize(entry, 79, "Global XPUB", location)
                guard (try? PublicKey(serialized: entry.keyData[45..<78])) != nil else {
                    throw .invalidPublicKey(field: "PSBT_GLOBAL_XPUB", location: location)
                }
                try checkKeyOrigin(entry.value, "PSBT_GLOBAL_XPUB", location)
            case PSBTKeyType.Global.txVersion:
                try expectKeySize(entry, 1, "Global Transaction Version", location)
                try expectValueSize(entry, 4, "PSBT_GLOBAL_TX_VERSION", location)
                sawTxVersion = true
            case PSBTKeyType.Global.fallbackLocktime:
                try expectKeySize(entry, 1, "Global Fallback Locktime", location)
                try expectValueSize(entry, 4, "PSBT_GLOBAL_FALLBACK_LOCKTIME", location)
            case PSBTKeyType.Global.inputCount, PSBTKeyType.Global.outputCount:
                let isInput = entry.keyType == PSBTKeyType.Global.inputCount
                try expectKeySize(entry, 1, isInput ? "Global Input Count" : "Global Output Count", location)
                var valueReader = ByteReader(entry.value)
                guard let count = try? valueReader.readCompactSize(), valueReader.isAtEnd else {
                    throw .valueSizeMismatch(
                        field: isInput ? "PSBT_GLOBAL_INPUT_COUNT" : "PSBT_GLOBAL_OUTPUT_COUNT", location: location)
                }
                // Each map takes at least one byte, so a count beyond the data is a lie.
                guard count <= UInt64(data.count) else {
                    throw .invalidValue(
                        field: isInput ? "PSBT_GLOBAL_INPUT_COUNT" : "PSBT_GLOBAL_OUTPUT_COUNT",
                        location: location, reason: "count \(count) exceeds the data")
                }
                if isInput {
                    inputCount = Int(count)
                    sawInputCount = true
                } else {
                    outputCount = Int(count)
                    sawOutputCount = true
                }
            case PSBTKeyType.Global.txModifiable:
                try expectKeySize(entry, 1, "Global TX Modifiable Flags", location)
                try expectValueSize(entry, 1, "PSBT_GLOBAL_TX_MODIFIABLE", location)
            case PSBTKeyType.Global.version:
                try expectKeySize(entry, 1, "Global PSBT Version", location)
                try expectValueSize(entry, 4, "PSBT_GLOBAL_VERSION", location)
                version = PSBT.uint32(entry.value) ?? 0
                guard version <= 2 else { throw .unsupportedVersion(version) }
            default:
                break
            }
        }
        try Self.checkSilentPaymentFields(global, location: .global, version: version)
        switch version {
        case 0:
            guard let tx = unsignedTx else { throw .missingUnsignedTransaction }
            _ = tx
            for (type, name) in [
                (PSBTKeyType.Global.txVersion, "PSBT_GLOBAL_TX_VERSION"),
                (PSBTKeyType.Global.fallbackLocktime, "PSBT_GLOBAL_FALLBACK_LOCKTIME"),
                (PSBTKeyType.Global.inputCount, "PSBT_GLOBAL_INPUT_COUNT"),
                (PSBTKeyType.Global.outputCount, "PSBT_GLOBAL_OUTPUT_COUNT"),
                (PSBTKeyType.Global.txModifiable, "PSBT_GLOBAL_TX_MODIFIABLE"),
            ] where global.contains(type) {
                throw .fieldNotAllowed(field: name, version: 0, location: .global)
            }
        case 2:
            guard sawTxVersion else { throw .missingRequiredField(field: "PSBT_GLOBAL_TX_VERSION", location: .global) }
            guard sawInputCount else {
                throw .missingRequiredField(field: "PSBT_GLOBAL_INPUT_COUNT", location: .global)
            }
            guard sawOutputCount else {
                throw .missingRequiredField(field: "PSBT_GLOBAL_OUTPUT_COUNT", location: .global)
            }
            guard unsignedTx == nil else {
                throw .fieldNotAllowed(field: "PSBT_GLOBAL_UNSIGNED_TX", version: 2, location: .global)
            }
        default:
            throw .unsupportedVersion(version)
        }

        var inputs: [PSBTInput] = []
        // Previous transactions already decoded, by their bytes: inputs spending outputs of one transaction carry it
        // byte for byte, and it is decoded and hashed (its txid) once, not once per input.
        var decodedPrevious: [PreviousTransactionBytes: (transaction: Transaction, txid: Txid)] = [:]
        for index in 0..<inputCount {
            guard !reader.isAtEnd else { throw .inputCountMismatch(expected: inputCount, actual: index) }
            let map = try readMap(.input(index))
            let raw = map.value(PSBTKeyType.Input.nonWitnessUTXO).map(PreviousTransactionBytes.init)
            let known = raw.flatMap { decodedPrevious[$0] }
            let input = PSBTInput(map: map, previousTransaction: known?.transaction)
            try validateInput(input, index: index, version: version)
            if let previous = input.nonWitnessUTXO {
                let txid = known?.txid ?? previous.txid
                if known == nil, let raw { decodedPrevious[raw] = (previous, txid) }
                let outpoint: OutPoint? =
                    version == 0 ? unsignedTx?.inputs[index].previousOutput : input.previousOutpoint
                if let outpoint {
                    guard txid == outpoint.txid else { throw .nonWitnessUTXOMismatch(input: index) }
                    guard Int(outpoint.vout) < previous.outputs.count else {
                        throw .outputIndexOutOfRange(input: index)
                    }
                }
            }
            inputs.append(input)
        }
        var outputs: [PSBTOutput] = []
        for index in 0..<outputCount {
            guard !reader.isAtEnd else { throw .outputCountMismatch(expected: outputCount, actual: index) }
            let map = try readMap(.output(index))
            try validateOutput(map, index: index, version: version)
            outputs.append(PSBTOutput(map: map))
        }
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remainingCount) }
        let psbt = PSBT(version: version, global: global, inputs: inputs, outputs: outputs)
        try Self.checkConsensusRules(psbt)
        return psbt
    }

    /// Bitcoin Core's `CheckTransaction` rules that a PSBT's transaction can break before it is signed: no outpoint
    /// spent twice, and outputs (each already at most 21,000,000 BTC) that do not sum past 21,000,000 BTC.
    static func checkConsensusRules(_ psbt: PSBT) throws(PSBTError) {
        guard let transaction = try? psbt.unsignedTransaction() else { return }
        var seen: Set<OutPoint> = []
        seen.reserveCapacity(transaction.inputs.count)
        for (index, input) in transaction.inputs.enumerated() where !seen.insert(input.previousOutput).inserted {
            throw .invalidUnsignedTransaction(
                reason: "input \(index) spends \(input.previousOutput) a second time (duplicate input)")
        }
        do { _ = try Amount.sum(transaction.outputs.map(\.value)) } catch {
            throw .invalidUnsignedTransaction(reason: "the outputs sum to more than 21,000,000 BTC")
        }
    }

    /// Reads key-value records up to the separator, rejecting duplicate keys.
    private mutating func readMap(_ location: PSBTLocation) throws(PSBTError) -> PSBTMap {
        var entries: [PSBTEntry] = []
        var seen: Set<[UInt8]> = []
        while true {
            guard !reader.isAtEnd else { throw .missingSeparator(location: location) }
            let key = try readVarBytes()
            if key.isEmpty { return PSBTMap(entries) }
            guard seen.insert(key).inserted else { throw .duplicateKey(keyHex: key.hexString, location: location) }
            let value = try readVarBytes()
            let entry: PSBTEntry
            do { entry = try PSBTEntry(key: key, value: value) } catch { throw .truncated(offset: reader.offset) }
            entries.append(entry)
        }
    }

    private mutating func readVarBytes() throws(PSBTError) -> [UInt8] {
        let start = reader.offset
        let length: UInt64
        do { length = try reader.readCompactSize() } catch {
            if case .nonCanonicalCompactSize = error { throw .nonCanonicalLength(offset: start) }
            throw .truncated(offset: start)
        }
        guard length <= UInt64(reader.remainingCount) else { throw .truncated(offset: start) }
        do { return try reader.read(count: Int(length)) } catch { throw .truncated(offset: start) }
    }

    // MARK: Field checks

    private func expectKeySize(_ entry: PSBTEntry, _ size: Int, _ name: String, _ location: PSBTLocation)
        throws(PSBTError)
    {
        guard entry.key.count == size else {
            throw .invalidKeySize(field: name, location: location, expected: String(size), actual: entry.key.count)
        }
    }

    private func expectValueSize(_ entry: PSBTEntry, _ size: Int, _ name: String, _ location: PSBTLocation)
        throws(PSBTError)
    {
        guard entry.value.count == size else { throw .valueSizeMismatch(field: name, location: location) }
    }

    private func checkKeyOrigin(_ bytes: some Collection<UInt8>, _ name: String, _ location: PSBTLocation)
        throws(PSBTError)
    {
        guard bytes.count % 4 == 0, !bytes.isEmpty else { throw .invalidKeyOrigin(field: name, location: location) }
    }

    private func checkPublicKey(_ bytes: some Collection<UInt8>, _ name: String, _ location: PSBTLocation)
        throws(PSBTError)
    {
        guard (try? PublicKey(serialized: bytes)) != nil else {
            throw .invalidPublicKey(field: name, location: location)
        }
    }

    private func checkScript(_ entry: PSBTEntry, _ name: String, _ location: PSBTLocation) throws(PSBTError) {
        try expectKeySize(entry, 1, name, location)
    }

    /// Checks a taproot BIP32 derivation value: compact-size count of leaf hashes, the hashes, then a key origin.
    private func checkTapDerivation(_ entry: PSBTEntry, _ name: String, _ location: PSBTLocation) throws(PSBTError) {
        var valueReader = ByteReader(entry.value)
        guard let count = try? valueReader.readCompactSize(), count <= UInt64(entry.value.count / 32) else {
            throw .invalidValue(field: name, location: location, reason: "\(name) has an invalid length")
        }
        guard (try? valueReader.read(count: Int(count) * 32)) != nil else {
            throw .invalidValue(field: name, location: location, reason: "\(name) has an invalid length")
        }
        try checkKeyOrigin(entry.value[(entry.value.count - valueReader.remainingCount)...], name, location)
    }

    private func checkMuSigParticipants(_ entry: PSBTEntry, _ name: String, _ context: String, _ location: PSBTLocation)
        throws(PSBTError)
    {
        try expectKeySize(entry, 34, name, location)
        guard entry.keyData.count == 33, (try? PublicKey(serialized: entry.keyData)) != nil else {
            throw .invalidPublicKey(field: "\(context) musig2 aggregate pubkey", location: location)
        }
        guard entry.value.count % 33 == 0 else {
            throw .invalidValue(
                field: name, location: location, reason: "participants pubkeys value size is not a multiple of 33")
        }
        var offset = 0
        while offset < entry.value.count {
            guard (try? PublicKey(serialized: entry.value[offset..<offset + 33])) != nil else {
                throw .invalidPublicKey(field: "\(context) musig2 participant pubkey", location: location)
            }
            offset += 33
        }
    }

    private func checkMuSigIdentifier(_ entry: PSBTEntry, _ name: String, _ location: PSBTLocation) throws(PSBTError) {
        guard entry.key.count == 67 || entry.key.count == 99 else {
            throw .invalidKeySize(field: name, location: location, expected: "67 or 99", actual: entry.key.count)
        }
        let participant = entry.keyData[0..<33]
        let aggregate = entry.keyData[33..<66]
        guard (try? PublicKey(serialized: aggregate)) != nil, aggregate.count == 33 else {
            throw .invalidPublicKey(field: "musig2 aggregate pubkey", location: location)
        }
        guard (try? PublicKey(serialized: participant)) != nil else {
            throw .invalidPublicKey(field: "musig2 participant pubkey", location: location)
        }
    }

    private func validateInput(_ input: PSBTInput, index: Int, version: UInt32) throws(PSBTError) {
        let map = input.map
        let location = PSBTLocation.input(index)
        typealias T = PSBTKeyType.Input
        var sawTxid = false
        var sawIndex = false
        for entry in map.entries {
            switch entry.keyType {
            case T.nonWitnessUTXO:
                try expectKeySize(entry, 1, "Input Non-witness UTXO", location)
                guard input.nonWitnessUTXO != nil else {  // decoded once, kept for the review and the signer
                    throw .invalidValue(
                        field: "PSBT_IN_NON_WITNESS_UTXO", location: location, reason: "not a transaction")
                }
            case T.witnessUTXO:
                try expectKeySize(entry, 1, "Input Witness UTXO", location)
                guard (try? TxOut(serialized: entry.value)) != nil else {
                    throw .valueSizeMismatch(field: "PSBT_IN_WITNESS_UTXO", location: location)
                }
            case T.partialSig:
                guard entry.key.count == 34 || entry.key.count == 66 else {
                    throw .invalidKeySize(
                        field: "partial signature pubkey", location: location, expected: "34 or 66",
                        actual: entry.key.count)
                }
                try checkPublicKey(entry.keyData, "PSBT_IN_PARTIAL_SIG", location)
                guard let sighash = entry.value.last, !entry.value.isEmpty,
                    (try? ECDSASignature(der: entry.value.dropLast())) != nil,
                    SighashType.isDefinedForECDSA(UInt32(sighash))
                else { throw .invalidSignatureEncoding(location: location) }
            case T.sighashType:
                try expectKeySize(entry, 1, "Input Sighash Type", location)
                try expectValueSize(entry, 4, "PSBT_IN_SIGHASH_TYPE", location)
            case T.redeemScript: try checkScript(entry, "Input redeemScript", location)
            case T.witnessScript: try checkScript(entry, "Input witnessScript", location)
            case T.bip32Derivation:
                guard entry.key.count == 34 || entry.key.count == 66 else {
                    throw .invalidKeySize(
                        field: "BIP32 keypath", location: location, expected: "34 or 66", actual: entry.key.count)
                }
                try checkPublicKey(entry.keyData, "PSBT_IN_BIP32_DERIVATION", location)
                try checkKeyOrigin(entry.value, "PSBT_IN_BIP32_DERIVATION", location)
            case T.finalScriptSig: try checkScript(entry, "Input Final scriptSig", location)
            case T.finalScriptWitness:
                try expectKeySize(entry, 1, "Input Final scriptWitness", location)
                guard PSBTInput.decodeWitness(entry.value) != nil else {
                    throw .valueSizeMismatch(field: "PSBT_IN_FINAL_SCRIPTWITNESS", location: location)
                }
            case T.ripemd160, T.hash160:
                let name = entry.keyType == T.ripemd160 ? "Input RIPEMD160 Preimage" : "Input Hash160 Preimage"
                try expectKeySize(entry, 21, name, location)
                let digest = entry.keyType == T.ripemd160 ? RIPEMD160.hash(entry.value) : Hash160.hash(entry.value)
                guard digest == entry.keyData else {
                    throw .invalidValue(field: name, location: location, reason: "preimage does not match the hash")
                }
            case T.sha256, T.hash256:
                let name = entry.keyType == T.sha256 ? "Input SHA256 Preimage" : "Input Hash256 Preimage"
                try expectKeySize(entry, 33, name, location)
                let digest = entry.keyType == T.sha256 ? SHA256.hash(entry.value) : SHA256.doubleHash(entry.value)
                guard digest == entry.keyData else {
                    throw .invalidValue(field: name, location: location, reason: "preimage does not match the hash")
                }
            case T.previousTxid:
                try expectKeySize(entry, 1, "Input Previous TXID", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(field: "PSBT_IN_PREVIOUS_TXID", version: version, location: location)
                }
                try expectValueSize(entry, 32, "PSBT_IN_PREVIOUS_TXID", location)
                sawTxid = true
            case T.outputIndex:
                try expectKeySize(entry, 1, "Input Previous Output's Index", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(field: "PSBT_IN_OUTPUT_INDEX", version: version, location: location)
                }
                try expectValueSize(entry, 4, "PSBT_IN_OUTPUT_INDEX", location)
                sawIndex = true
            case T.sequence:
                try expectKeySize(entry, 1, "Input Sequence", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(field: "PSBT_IN_SEQUENCE", version: version, location: location)
                }
                try expectValueSize(entry, 4, "PSBT_IN_SEQUENCE", location)
            case T.requiredTimeLocktime:
                try expectKeySize(entry, 1, "Input Required Time Based Locktime", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(
                        field: "PSBT_IN_REQUIRED_TIME_LOCKTIME", version: version, location: location)
                }
                try expectValueSize(entry, 4, "PSBT_IN_REQUIRED_TIME_LOCKTIME", location)
                guard let time = PSBT.uint32(entry.value), time >= 500_000_000 else {
                    throw .invalidValue(
                        field: "PSBT_IN_REQUIRED_TIME_LOCKTIME", location: location,
                        reason: "Required time based locktime is invalid (less than 500000000)")
                }
            case T.requiredHeightLocktime:
                try expectKeySize(entry, 1, "Input Required Height Based Locktime", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(
                        field: "PSBT_IN_REQUIRED_HEIGHT_LOCKTIME", version: version, location: location)
                }
                try expectValueSize(entry, 4, "PSBT_IN_REQUIRED_HEIGHT_LOCKTIME", location)
                guard let height = PSBT.uint32(entry.value), height < 500_000_000, height > 0 else {
                    throw .invalidValue(
                        field: "PSBT_IN_REQUIRED_HEIGHT_LOCKTIME", location: location,
                        reason: "Required height based locktime is invalid (0, or greater than or equal to 500000000)")
                }
            case T.tapKeySig:
                try expectKeySize(entry, 1, "Input Taproot Key Path Signature", location)
                guard entry.value.count >= 64 else {
                    throw .invalidValue(
                        field: "PSBT_IN_TAP_KEY_SIG", location: location,
                        reason: "Input Taproot key path signature is shorter than 64 bytes")
                }
                guard entry.value.count <= 65 else {
                    throw .invalidValue(
                        field: "PSBT_IN_TAP_KEY_SIG", location: location,
                        reason: "Input Taproot key path signature is longer than 65 bytes")
                }
            case T.tapScriptSig:
                try expectKeySize(entry, 65, "Input Taproot Script Path Signature", location)
                guard entry.value.count >= 64, entry.value.count <= 65 else {
                    throw .invalidValue(
                        field: "PSBT_IN_TAP_SCRIPT_SIG", location: location,
                        reason:
                            "Input Taproot script path signature is \(entry.value.count < 64 ? "shorter than 64" : "longer than 65") bytes"
                    )
                }
            case T.tapLeafScript:
                guard entry.key.count >= 34 else {
                    throw .invalidKeySize(
                        field: "Input Taproot leaf script", location: location, expected: "at least 34",
                        actual: entry.key.count)
                }
                guard (entry.key.count - 2) % 32 == 0, entry.key.count - 1 <= 33 + 32 * 128 else {
                    throw .invalidKeySize(
                        field: "Input Taproot leaf script control block", location: location,
                        expected: "33 + 32k (k ≤ 128) + 1", actual: entry.key.count)
                }
                guard !entry.value.isEmpty else {
                    throw .invalidValue(
                        field: "PSBT_IN_TAP_LEAF_SCRIPT", location: location,
                        reason: "Input Taproot leaf script must be at least 1 byte")
                }
            case T.tapBIP32Derivation:
                try expectKeySize(entry, 33, "Input Taproot BIP32 Keypath", location)
                try checkTapDerivation(entry, "Input Taproot BIP32 keypath", location)
            case T.tapInternalKey:
                try expectKeySize(entry, 1, "Input Taproot Internal Key", location)
                try expectValueSize(entry, 32, "PSBT_IN_TAP_INTERNAL_KEY", location)
            case T.tapMerkleRoot:
                try expectKeySize(entry, 1, "Input Taproot Merkle Root", location)
                try expectValueSize(entry, 32, "PSBT_IN_TAP_MERKLE_ROOT", location)
            case T.musig2ParticipantPubkeys:
                try checkMuSigParticipants(entry, "Input MuSig2 Participants Pubkeys", "Input", location)
            case T.musig2PubNonce:
                try checkMuSigIdentifier(entry, "Input musig2 pubnonce key", location)
                guard entry.value.count == 66 else {
                    throw .invalidValue(
                        field: "PSBT_IN_MUSIG2_PUB_NONCE", location: location,
                        reason: "Input musig2 pubnonce value is not 66 bytes")
                }
            case T.spECDHShare, T.spDLEQ:
                try Self.checkSilentPaymentFields(PSBTMap([entry]), location: location, version: version)
            case T.musig2PartialSig:
                try checkMuSigIdentifier(entry, "Input musig2 partial sig key", location)
                try expectValueSize(entry, 32, "PSBT_IN_MUSIG2_PARTIAL_SIG", location)
            default:
                break
            }
        }
        if version >= 2 {
            guard sawTxid else { throw .missingRequiredField(field: "PSBT_IN_PREVIOUS_TXID", location: location) }
            guard sawIndex else { throw .missingRequiredField(field: "PSBT_IN_OUTPUT_INDEX", location: location) }
        }
    }

    private func validateOutput(_ map: PSBTMap, index: Int, version: UInt32) throws(PSBTError) {
        let location = PSBTLocation.output(index)
        typealias T = PSBTKeyType.Output
        var sawAmount = false
        var sawScript = false
        for entry in map.entries {
            switch entry.keyType {
            case T.redeemScript: try checkScript(entry, "Output redeemScript", location)
            case T.witnessScript: try checkScript(entry, "Output witnessScript", location)
            case T.bip32Derivation:
                guard entry.key.count == 34 || entry.key.count == 66 else {
                    throw .invalidKeySize(
                        field: "BIP32 keypath", location: location, expected: "34 or 66", actual: entry.key.count)
                }
                try checkPublicKey(entry.keyData, "PSBT_OUT_BIP32_DERIVATION", location)
                try checkKeyOrigin(entry.value, "PSBT_OUT_BIP32_DERIVATION", location)
            case T.amount:
                try expectKeySize(entry, 1, "Output Amount", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(field: "PSBT_OUT_AMOUNT", version: version, location: location)
                }
                try expectValueSize(entry, 8, "PSBT_OUT_AMOUNT", location)
                sawAmount = true
            case T.script:
                try expectKeySize(entry, 1, "Output Script", location)
                guard version >= 2 else {
                    throw .fieldNotAllowed(field: "PSBT_OUT_SCRIPT", version: version, location: location)
                }
                sawScript = true
            case T.tapInternalKey:
                try expectKeySize(entry, 1, "Output Taproot Internal Key", location)
                try expectValueSize(entry, 32, "PSBT_OUT_TAP_INTERNAL_KEY", location)
            case T.tapTree:
                try expectKeySize(entry, 1, "Output Taproot Tree Key", location)
                guard !entry.value.isEmpty else {
                    throw .invalidValue(
                        field: "PSBT_OUT_TAP_TREE", location: location, reason: "Output Taproot tree must not be empty")
                }
                guard let leaves = PSBTOutput.decodeTapTree(entry.value) else {
                    throw .invalidValue(
                        field: "PSBT_OUT_TAP_TREE", location: location, reason: "Output Taproot tree is malformed")
                }
                for leaf in leaves {
                    guard leaf.depth <= 128 else {
                        throw .invalidValue(
                            field: "PSBT_OUT_TAP_TREE", location: location,
                            reason: "Output Taproot tree has as leaf greater than Taproot maximum depth")
                    }
                    guard leaf.leafVersion & 0x01 == 0 else {
                        throw .invalidValue(
                            field: "PSBT_OUT_TAP_TREE", location: location,
                            reason: "Output Taproot tree has a leaf with an invalid leaf version")
                    }
                }
                guard PSBTOutput.tapTreeIsComplete(leaves.map(\.depth)) else {
                    throw .invalidValue(
                        field: "PSBT_OUT_TAP_TREE", location: location, reason: "Output Taproot tree is malformed")
                }
            case T.tapBIP32Derivation:
                try expectKeySize(entry, 33, "Output Taproot BIP32 Keypath", location)
                try checkTapDerivation(entry, "Output Taproot BIP32 keypath", location)
            case T.musig2ParticipantPubkeys:
                try checkMuSigParticipants(entry, "Output MuSig2 Participants Pubkeys", "Output", location)
            default:
                break
            }
        }
        try Self.checkSilentPaymentFields(map, location: location, version: version)
        if version >= 2 {
            guard sawAmount else { throw .missingRequiredField(field: "PSBT_OUT_AMOUNT", location: location) }
            // BIP375: a silent-payment output has no script until the signers' ECDH shares are all in.
            guard sawScript || map.contains(T.spV0Info) else {
                throw .missingRequiredField(field: "PSBT_OUT_SCRIPT", location: location)
            }
        }
    }
}

/// A previous transaction's bytes as a dictionary key: equal only when every byte is; hashed over its length and its
/// first and last 48 bytes (a transaction's version, first outpoint, last outputs and lock time), not all of it.
struct PreviousTransactionBytes: Hashable {
    let bytes: [UInt8]

    /// Equal when every byte is, compared with `memcmp`.
    ///
    /// Each input spending an output of a transaction already seen compares its copy with the first one in full: the
    /// 700 inputs of the benchmark's 2 MB PSBT compare 2 MB. `Array`'s `==` compares a byte at a time, and that loop
    /// went from 676 to 1,123 perf samples between the eighth session's binary and main's with no change to this code
    /// (parse and serialize 3.4 → 4.0 ms); with `memcmp` the same workload takes 2.7 ms (issue 33).
    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return true }  // both empty
                return memcmp(a, b, left.count) == 0
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.prefix(48).withUnsafeBytes { hasher.combine(bytes: $0) }
        bytes.suffix(48).withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
