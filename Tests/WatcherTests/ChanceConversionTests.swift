import Bitcoin
import BitcoinCrypto
import Chance
import Testing

@testable import Watcher

/// `ChanceConversion`, the library call for `convert`.
///
/// A `multisig:` text of an imported `sh(sortedmulti)` wallet to a
/// PSBT with the wallet's previous transactions and derivations, and back. Keys from fixed seeds.
@Suite("Chance multisig: text to PSBT and back with the wallet's data")
struct ChanceConversionTests {
    let account: Account
    let masters: [ExtendedPrivateKey]

    init() throws {
        let path = try DerivationPath(string: "m/45h")
        masters = try [UInt8(1), 2, 3].map { byte in
            try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .test)
        }
        let keys = try masters.map {
            "[\($0.fingerprint)/45h]\(try $0.derive(path).extendedPublicKey.base58String)/<0;1>/*"
        }
        let imported = try AccountImport.parse("sh(sortedmulti(2,\(keys.joined(separator: ","))))", network: .regtest)
        account = Account(external: imported.external, change: imported.change, network: imported.network)
    }

    @Test("Inputs and change get every key's derivation and the previous transaction; the text comes back the same")
    func convert() throws {
        let receive = try account.derive(.external, index: 3)
        let change = try account.derive(.internal, index: 3)
        let previous = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 5, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 80_000), scriptPubKey: receive.script)])
        let transaction = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: previous.txid, vout: 0))],
            outputs: [
                TxOut(value: try Amount(sats: 50_000), scriptPubKey: Script([.op(.op1)])),
                TxOut(value: try Amount(sats: 29_000), scriptPubKey: change.script),
            ])
        let keys = try masters.map { try $0.derive(try DerivationPath(string: "m/45h/0/3")).publicKey }
        let redeem = try Script.multisig(threshold: 2, keys: keys, sorted: true)
        #expect(Script.p2sh(ScriptHash(redeem)) == receive.script)
        let text = try ChanceMultisig(transaction: transaction, redeemScript: redeem)
        let psbt = try ChanceConversion.psbt(
            from: text, account: account, addresses: [receive, change], previousTransactions: [previous.txid: previous])
        #expect(psbt.inputs[0].nonWitnessUTXO == previous)
        #expect(Set(psbt.inputs[0].bip32Derivations.map(\.origin.description)).count == 3)
        #expect(psbt.inputs[0].bip32Derivations.allSatisfy { $0.origin.path.description.hasSuffix("/0/3") })
        #expect(psbt.outputs[1].bip32Derivations.count == 3)
        #expect(psbt.outputs[0].bip32Derivations.isEmpty)
        #expect(try ChanceConversion.text(from: psbt) == text)
        // Without the wallet's addresses or previous transactions: the bare conversion, no derivations, no UTXO.
        let bare = try ChanceConversion.psbt(from: text, account: account, addresses: [], previousTransactions: [:])
        #expect(bare.inputs[0].nonWitnessUTXO == nil && bare.inputs[0].bip32Derivations.isEmpty)
    }
}
