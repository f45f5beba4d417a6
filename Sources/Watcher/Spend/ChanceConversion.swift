import Bitcoin
import BitcoinCrypto
import Chance

/// A Chance wallet `multisig:` text to a PSBT and back, with what this watcher knows (docs/architecture.md section 3;
/// docs/watcher.md, "Chance multisig: texts").
///
/// Text to PSBT: `ChanceMultisig.psbt(previousTransactions:)` (unsigned transaction, redeem script, signatures as
/// partial signatures), plus the previous transactions the wallet holds (`non_witness_utxo`: the legacy inputs'
/// amounts) and, for inputs and outputs that pay one of the wallet's addresses, every key's BIP32 derivation, so a
/// signer can find its key and recognise change. PSBT to text: `ChanceMultisig(psbt:)`. No networking: the store is
/// read, nothing is fetched.
public enum ChanceConversion {
    /// The PSBT of `text` for `account`, with `addresses` (the wallet's derived addresses) and
    /// `previousTransactions` (by txid; those no input spends are ignored).
    ///
    /// - Throws: `ChanceMultisigError` when a previous transaction does not match its input.
    public static func psbt(
        from text: ChanceMultisig, account: Account, addresses: [AddressRecord],
        previousTransactions: [Txid: Transaction]
    ) throws(ChanceMultisigError) -> PSBT {
        let spent = text.transaction.inputs.compactMap { previousTransactions[$0.previousOutput.txid] }
        var psbt = try text.psbt(previousTransactions: spent)
        let byScript = Dictionary(addresses.map { ($0.script, $0) }, uniquingKeysWith: { first, _ in first })
        if let record = byScript[text.scriptPubKey] {
            for (key, origin) in derivations(account, record) {
                for input in psbt.inputs.indices { psbt.addBIP32Derivation(key, origin: origin, input: input) }
            }
        }
        for (index, output) in text.transaction.outputs.enumerated() {
            guard let record = byScript[output.scriptPubKey] else { continue }
            for (key, origin) in derivations(account, record) {
                psbt.addBIP32Derivation(key, origin: origin, output: index)
            }
        }
        psbt.canonicalize()
        return psbt
    }

    /// The PSBT of `text` for the stored wallet `wallet`: its derived addresses and the previous transactions it
    /// holds.
    ///
    /// - Throws: `StoreError`, `ChanceMultisigError`.
    public static func psbt(from text: ChanceMultisig, store: Store, wallet: WalletRecord) throws -> PSBT {
        guard let walletID = wallet.id else { throw StoreError.corrupt("wallet \(wallet.name) has no id") }
        let account = try Account(record: wallet)
        let txids = Set(text.transaction.inputs.map(\.previousOutput.txid))
        return try psbt(
            from: text, account: account, addresses: try store.addresses(walletID: walletID),
            previousTransactions: try store.transactions(walletID: walletID, txids: txids))
    }

    /// The `multisig:` text of a PSBT spending one legacy P2SH multisig redeem script.
    ///
    /// - Throws: `ChanceMultisigError`.
    public static func text(from psbt: PSBT) throws(ChanceMultisigError) -> ChanceMultisig {
        try ChanceMultisig(psbt: psbt)
    }

    /// Every key's derivation at the address `record` of `account` (keys without an origin are skipped).
    static func derivations(_ account: Account, _ record: AddressRecord) -> [(PublicKey, KeyOrigin)] {
        let descriptor = account.descriptor(record.keychain)
        var result: [(PublicKey, KeyOrigin)] = []
        for key in descriptor.expression.keys {
            guard let (publicKey, _) = try? key.publicKey(at: UInt32(record.index)),
                let origin = key.keyOrigin(at: UInt32(record.index))
            else { continue }
            result.append((publicKey, origin))
        }
        return result
    }
}
