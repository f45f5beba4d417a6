import Bitcoin
import Descriptors

extension SpendPlan {
    /// The plan as an unsigned version 0 PSBT (BIP174 Creator and Updater): each input gets its previous transaction,
    /// its witness UTXO (segwit and taproot), its scripts and the BIP32 (or BIP371 taproot) derivations of its keys;
    /// the change output gets the same fields so a signer can verify it.
    ///
    /// A wallet stores its receive and change branches as two single-path descriptors, so each input is described
    /// with the descriptor of its own keychain (`PSBT(spending:of:…)` for that one coin) and the maps are joined.
    ///
    /// - Throws: `PSBTError` when a coin does not match its descriptor or the descriptor kind is unsupported.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#creator
    public func psbt(account: Account) throws(PSBTError) -> PSBT {
        let transaction = transaction
        var result = try PSBT(unsignedTransaction: transaction)
        for (number, input) in inputs.enumerated() {
            let coin = DescriptorCoin(
                outpoint: input.utxo.outpoint, amount: input.utxo.value, index: UInt32(input.utxo.index),
                previousTransaction: input.previousTransaction)
            let single = try PSBT(
                spending: [coin], of: account.descriptor(input.utxo.keychain), to: outputs,
                version: transaction.version, lockTime: lockTime, sequence: input.sequence)
            result.inputs[number].map = single.inputs[0].map
        }
        if let change, let first = inputs.first {
            let keychain: Keychain = account.change == nil ? .external : .internal
            // The coin only carries the transaction shape here; its fields are discarded.
            let coin = DescriptorCoin(
                outpoint: first.utxo.outpoint, amount: first.utxo.value, index: UInt32(change.index))
            let single = try PSBT(
                spending: [coin], of: account.descriptor(keychain), to: outputs,
                change: [change.position: (path: 0, index: UInt32(change.index))], version: transaction.version,
                lockTime: lockTime, sequence: first.sequence)
            result.outputs[change.position].map = single.outputs[change.position].map
        }
        result.canonicalize()
        return result
    }
}
