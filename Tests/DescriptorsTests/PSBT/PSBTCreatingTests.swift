import Bitcoin
import BitcoinCrypto
import Descriptors
import SeedBackup
import Testing

/// `PSBT(spending:of:to:change:)`, the Creator and Updater from descriptor coins, on the BIP84 reference account
/// ("abandon … about", m/84'/0'/0'), whose first receive address the BIP pins.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors
@Suite("PSBT creator from descriptor coins (BIP174 Creator/Updater, BIP84 account)")
struct PSBTCreatingTests {
    static let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    static func descriptor(_ template: String = "wpkh(%@)", path: String = "84h/0h/0h") throws -> Descriptor {
        let master = try ExtendedPrivateKey(seed: try Mnemonic(phrase: phrase).seed(), network: .main)
        let account = try master.derive(try DerivationPath(string: "m/" + path))
        let key = "[\(master.fingerprint)/\(path)]\(account.extendedPublicKey.base58String)/<0;1>/*"
        return try Descriptor(string: template.replacingOccurrences(of: "%@", with: key))
    }

    static func funding(paying script: Script) throws -> Transaction {
        let fake = try Txid(bytes: [UInt8](repeating: 0xAB, count: 32))
        return Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: fake, vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 50_000), scriptPubKey: script)])
    }

    @Test("BIP84 coin: UTXOs, derivation and change fields")
    func bip84Coin() throws {
        let descriptor = try Self.descriptor()
        let receive = try Address(string: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu").scriptPubKey
        #expect(try descriptor.scriptPubKey(at: 0, path: 0) == receive)
        let funding = try Self.funding(paying: receive)
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: funding.txid, vout: 0), amount: try Amount(sats: 50_000), index: 0,
            previousTransaction: funding)
        let change = try descriptor.scriptPubKey(at: 3, path: 1)
        let psbt = try PSBT(
            spending: [coin], of: descriptor,
            to: [TxOut(value: try Amount(sats: 49_000), scriptPubKey: change)], change: [0: (path: 1, index: 3)])
        let input = psbt.inputs[0]
        #expect(input.nonWitnessUTXO == funding)
        #expect(input.witnessUTXO == TxOut(value: try Amount(sats: 50_000), scriptPubKey: receive))
        #expect(input.bip32Derivations.map(\.origin.description) == ["[73c5da0a/84h/0h/0h/0/0]"])
        #expect(psbt.outputs[0].bip32Derivations.map(\.origin.description) == ["[73c5da0a/84h/0h/0h/1/3]"])
        #expect(try psbt.unsignedTransaction().inputs[0].sequence == .replaceByFee)
        #expect(try PSBT(serialized: psbt.serialized()) == psbt)
    }

    @Test("A previous transaction that does not pay the descriptor at the outpoint is refused")
    func mismatchedPreviousTransaction() throws {
        let descriptor = try Self.descriptor()
        let funding = try Self.funding(paying: try descriptor.scriptPubKey(at: 1, path: 0))
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: funding.txid, vout: 0), amount: try Amount(sats: 50_000), index: 0,
            previousTransaction: funding)
        #expect(throws: PSBTError.nonWitnessUTXOMismatch(input: 0)) {
            _ = try PSBT(spending: [coin], of: descriptor, to: [])
        }
    }

    @Test("A change output that is not the descriptor's script is refused")
    func wrongChange() throws {
        let descriptor = try Self.descriptor()
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 1, count: 32)), vout: 0),
            amount: try Amount(sats: 50_000), index: 0)
        let output = TxOut(value: try Amount(sats: 1_000), scriptPubKey: try descriptor.scriptPubKey(at: 4, path: 1))
        #expect {
            _ = try PSBT(spending: [coin], of: descriptor, to: [output], change: [0: (path: 1, index: 5)])
        } throws: { error in
            if case .invalidValue(field: "change", location: .output(0), _) = error as? PSBTError { return true }
            return false
        }
    }

    @Test("Taproot coins get the internal key and its BIP371 derivation, and no previous transaction is needed")
    func taprootCoin() throws {
        let descriptor = try Self.descriptor("tr(%@)", path: "86h/0h/0h")
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 2, count: 32)), vout: 1),
            amount: try Amount(sats: 20_000), index: 0)
        let psbt = try PSBT(spending: [coin], of: descriptor, to: [])
        let input = psbt.inputs[0]
        // BIP86's first receive address of the same mnemonic.
        let bip86 = try Address(string: "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr")
        #expect(input.witnessUTXO?.scriptPubKey == bip86.scriptPubKey)
        #expect(input.tapInternalKey != nil)
        #expect(input.tapBIP32Derivations.map(\.origin.description) == ["[73c5da0a/86h/0h/0h/0/0]"])
        #expect(input.bip32Derivations.isEmpty)
    }

    @Test("Descriptors the creator does not support are refused, not half-filled")
    func unsupportedDescriptor() throws {
        let descriptor = try Self.descriptor("combo(%@)")
        let coin = DescriptorCoin(
            outpoint: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 3, count: 32)), vout: 0),
            amount: try Amount(sats: 1_000), index: 0)
        #expect {
            _ = try PSBT(spending: [coin], of: descriptor, to: [])
        } throws: { error in
            if case .invalidValue(field: "descriptor", location: .input(0), _) = error as? PSBTError { return true }
            return false
        }
    }
}
