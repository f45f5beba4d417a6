import Bitcoin
import BitcoinCrypto
import Codecs

extension ChanceMultisig {
    /// The PSBT (BIP174 v0) of this text: the unsigned transaction, the redeem script on every input, each position's
    /// signatures as partial signatures, and the previous transactions given (`non_witness_utxo`), which supply the
    /// legacy inputs' amounts.
    ///
    /// Each previous transaction must be the one the input spends (its txid) and its output must pay the P2SH script
    /// of the redeem script; an input without one keeps no UTXO (its amount, and the fee, stay unknown).
    /// - Throws: `ChanceMultisigError.previousTransactionMismatch`.
    public func psbt(previousTransactions: [Transaction] = []) throws(ChanceMultisigError) -> PSBT {
        var psbt: PSBT
        do { psbt = try PSBT(unsignedTransaction: transaction) } catch {
            throw .invalidTransaction(String(describing: error))
        }
        let byTxid = Dictionary(previousTransactions.map { ($0.txid, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, input) in transaction.inputs.enumerated() {
            psbt.setRedeemScript(redeemScript, input: index)
            if let previous = byTxid[input.previousOutput.txid] {
                let vout = Int(input.previousOutput.vout)
                guard vout < previous.outputs.count else {
                    throw .previousTransactionMismatch(
                        input: index, reason: "it has no output \(vout) (\(previous.outputs.count) outputs)")
                }
                guard previous.outputs[vout].scriptPubKey == scriptPubKey else {
                    throw .previousTransactionMismatch(
                        input: index, reason: "its output \(vout) does not pay the redeem script's P2SH address")
                }
                psbt.setNonWitnessUTXO(previous, input: index)
            }
            for (position, list) in signatures {
                psbt.inputs[index].map.set(
                    PSBTKeyType.Input.partialSig, keyData: keyBytes[position], value: list[index])
            }
        }
        psbt.canonicalize()
        return psbt
    }

    /// The text of a PSBT that spends one legacy P2SH multisig redeem script on every input.
    ///
    /// Partial signatures become key positions; a key must have signed every input or none (the protocol keeps one
    /// list per key). Finalized inputs, segwit inputs, or inputs with different redeem scripts cannot be carried.
    /// - Throws: `ChanceMultisigError`.
    public init(psbt: PSBT) throws(ChanceMultisigError) {
        let transaction: Transaction
        do { transaction = try psbt.unsignedTransaction() } catch {
            throw .invalidTransaction(String(describing: error))
        }
        var script: Script?
        for (index, input) in psbt.inputs.enumerated() {
            guard !input.isFinalized else { throw .notRepresentable("input \(index) is already finalized") }
            guard input.witnessScript == nil, input.witnessUTXO == nil else {
                throw .notRepresentable("input \(index) is a segwit input (the protocol carries legacy P2SH only)")
            }
            guard let redeem = input.redeemScript else {
                throw .notRepresentable("input \(index) has no redeem script")
            }
            if let script, script != redeem {
                throw .notRepresentable("inputs 0 and \(index) spend different redeem scripts")
            }
            script = redeem
        }
        guard let script else { throw .notRepresentable("the PSBT has no inputs") }
        guard case .multisig = script.template else { throw .notMultisigRedeemScript }
        var signatures: [Int: [[UInt8]]] = [:]
        for (position, keyBytes) in Self.pushedKeys(script).enumerated() {
            let found = psbt.inputs.map { input in
                input.map.entry(PSBTKeyType.Input.partialSig, keyData: keyBytes)?.value
            }
            let present = found.compactMap { $0 }
            if present.isEmpty { continue }
            guard present.count == found.count else {
                throw .notRepresentable(
                    "key position \(position) signed \(present.count) of \(found.count) inputs (the protocol keeps "
                        + "one signature per input for each key)")
            }
            signatures[position] = present
        }
        try self.init(transaction: transaction, redeemScript: script, signatures: signatures)
    }
}

extension ChanceMultisig {
    /// Raw transactions from a file: hex text (one or more transactions separated by whitespace) or binary
    /// transactions one after another.
    ///
    /// - Throws: `ChanceMultisigError.invalidTransaction` naming the transaction that does not parse.
    public static func transactions(fileBytes bytes: [UInt8]) throws(ChanceMultisigError) -> [Transaction] {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let hexDigits = Set("0123456789abcdefABCDEF".utf8)
        let isText = !bytes.isEmpty && bytes.allSatisfy { whitespace.contains($0) || hexDigits.contains($0) }
        var result: [Transaction] = []
        if isText {
            let tokens = bytes.split(whereSeparator: { whitespace.contains($0) })
            for (number, token) in tokens.enumerated() {
                let raw: [UInt8]
                do { raw = try [UInt8](hex: String(decoding: token, as: UTF8.self)) } catch {
                    throw .invalidTransaction("transaction \(number + 1) of the file is not hex: \(error)")
                }
                do { result.append(try Transaction(serialized: raw)) } catch {
                    throw .invalidTransaction("transaction \(number + 1) of the file: \(error)")
                }
            }
        } else {
            var reader = ByteReader(bytes)
            while !reader.isAtEnd {
                do { result.append(try Transaction(from: &reader)) } catch {
                    throw .invalidTransaction("transaction \(result.count + 1) of the file: \(error)")
                }
            }
        }
        guard !result.isEmpty else { throw .invalidTransaction("the file holds no transaction") }
        return result
    }
}
