import Bitcoin
import BitcoinCrypto
import Descriptors
import SeedBackup
import Signer

/// Builds PSBTs that spend from a BIP84 account of the BIP39 test mnemonic "abandon … about" (BIP84's own test vector
/// mnemonic), with the fields a coordinator adds, so each review test can change one thing.
struct ReviewFixture {
    static let mnemonic =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    let network: Network
    let master: ExtendedPrivateKey
    let account: Descriptor
    let accountPath: DerivationPath

    init(network: Network = .test) throws {
        self.network = network
        let seed = try Mnemonic(phrase: Self.mnemonic).seed()
        master = try ExtendedPrivateKey(seed: seed, network: network)
        accountPath = try DerivationPath(string: "m/84h/\(network.coinType)h/0h")
        let xpub = try master.derive(accountPath).extendedPublicKey
        account = try Descriptor(
            string:
                "wpkh([\(master.fingerprint)/\(accountPath.componentsDescription)]\(xpub.standardBase58String)/<0;1>/*)"
        )
    }

    var provider: SeedKeyProvider { SeedKeyProvider(master: master) }

    func origin(branch: UInt32, index: UInt32) throws -> KeyOrigin {
        KeyOrigin(
            fingerprint: master.fingerprint,
            path: try accountPath.appending(ChildNumber.normal(branch)).appending(ChildNumber.normal(index)))
    }

    func key(branch: UInt32, index: UInt32) throws -> PublicKey {
        try master.derive(try origin(branch: branch, index: index).path).publicKey
    }

    /// A transaction paying `amount` to our receive address `index` (the input's previous transaction).
    func funding(amount: UInt64, index: UInt32 = 0) throws -> Transaction {
        let script = try account.scriptPubKey(at: index, path: 0)
        let outpoint = OutPoint(txid: try Txid(bytes: [UInt8](repeating: UInt8(index + 1), count: 32)), vout: 0)
        return Transaction(
            inputs: [TxIn(previousOutput: outpoint)],
            outputs: [TxOut(value: try Amount(sats: amount), scriptPubKey: script)])
    }

    /// An external address of the network (BIP173's P2WSH example program, not ours).
    var externalScript: Script {
        get throws { try Script(hex: "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262") }
    }

    /// A PSBT spending `input` sats from receive index 0: `send` to the external address, the rest minus `fee` to
    /// change index 0, with non-witness and witness UTXOs and derivations.
    func psbt(input: UInt64 = 100_000, send: UInt64 = 60_000, fee: UInt64 = 1_000) throws -> PSBT {
        let previous = try funding(amount: input)
        let change = try account.scriptPubKey(at: 0, path: 1)
        let transaction = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: previous.txid, vout: 0), sequence: .replaceByFee)],
            outputs: [
                TxOut(value: try Amount(sats: send), scriptPubKey: try externalScript),
                TxOut(value: try Amount(sats: input - send - fee), scriptPubKey: change),
            ])
        var psbt = try PSBT(unsignedTransaction: transaction)
        psbt.setNonWitnessUTXO(previous, input: 0)
        psbt.setWitnessUTXO(previous.outputs[0], input: 0)
        psbt.addBIP32Derivation(try key(branch: 0, index: 0), origin: try origin(branch: 0, index: 0), input: 0)
        psbt.addBIP32Derivation(try key(branch: 1, index: 0), origin: try origin(branch: 1, index: 0), output: 1)
        return psbt
    }

    func review(_ psbt: PSBT, policy: SigningPolicy? = nil) throws -> TransactionReview {
        try TransactionReview(psbt, accounts: [account], policy: policy ?? SigningPolicy(network: network))
    }
}
