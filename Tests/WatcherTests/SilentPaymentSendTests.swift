import Bitcoin
import BitcoinCrypto
import SilentPayments
import Testing

@testable import Watcher
@testable import WatcherFlows

/// `send` to a silent-payment address: the PSBT the watcher writes (BIP375), and the coins it refuses.
@Suite("Watcher send: silent-payment PSBTs")
struct SilentPaymentSendTests {
    let recipient = SilentPaymentAddress(
        scanKey: PrivateKey.random().publicKey, spendKey: PrivateKey.random().publicKey, network: .regtest)
    let placeholder = Script([0x51, 0x20] + PrivateKey.random().xOnlyPublicKey.bytes)

    func psbt(spending script: Script, key: PublicKey?) throws -> PSBT {
        let transaction = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 50_000), scriptPubKey: placeholder)])
        var psbt = try PSBT(unsignedTransaction: transaction)
        psbt.setWitnessUTXO(TxOut(value: try Amount(sats: 60_000), scriptPubKey: script), input: 0)
        if let key {
            psbt.inputs[0].map.set(
                PSBTKeyType.Input.bip32Derivation, keyData: key.compressed, value: [1, 2, 3, 4, 0, 0, 0, 0])
        }
        return psbt
    }

    @Test("control: a P2WPKH coin gives a version 2 PSBT naming the address, with no script for it")
    func eligible() throws {
        let key = PrivateKey.random().publicKey
        let p2wpkh = Script([0x00, 0x14] + Hash160.hash(key.compressed))
        let result = try SendFlow.silentPaymentPSBT(
            try psbt(spending: p2wpkh, key: key), paying: [placeholder: recipient])
        #expect(result.version == 2)
        #expect(result.outputs[0].script == nil)
        #expect(result.outputs[0].map.value(PSBTKeyType.Output.spV0Info) == recipient.psbtInfo)
        #expect(BIP375.outputs(of: result).map(\.index) == [0])
    }

    @Test("placeholders of 300 payments to one address are all distinct (recipient 256 is not recipient 0's)")
    func manyPlaceholders() throws {
        let scripts = try (0..<300).map {
            try SendFlow.placeholder(for: recipient, number: $0, network: .regtest).scriptPubKey
        }
        #expect(Set(scripts).count == 300)
        #expect(scripts[0] != scripts[256])
    }

    @Test("a P2WSH (multisig) coin cannot pay a silent payment: refused")
    func multisigCoin() throws {
        let p2wsh = Script([0x00, 0x20] + [UInt8](repeating: 3, count: 32))
        #expect(throws: SilentPaymentError.self) {
            try SendFlow.silentPaymentPSBT(try psbt(spending: p2wsh, key: nil), paying: [placeholder: recipient])
        }
    }

    @Test("a segwit v2 coin cannot be spent beside a silent payment: refused")
    func segwitV2Coin() throws {
        let v2 = Script([0x52, 0x20] + [UInt8](repeating: 3, count: 32))
        do {
            _ = try SendFlow.silentPaymentPSBT(try psbt(spending: v2, key: nil), paying: [placeholder: recipient])
            Issue.record("a segwit v2 coin was accepted")
        } catch let error as SilentPaymentError {
            #expect(error.failureKind == .refused)
        }
    }
}
