import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup
import Signer

/// `airlock-bench signer`: the two costs a user of the signer feels.
///
/// Unlocking the vault (Argon2id at the default
/// 256 MiB / 3 passes, which docs/architecture.md section 3 fixes), and `sign` of a large PSBT without the KDF: parse, review
/// (ownership re-derived from the account, fee, policy), sign every input, trim for the coordinator, serialize.
struct SignerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signer",
        abstract: "Vault unlock at the default KDF, and review + sign + serialize of an N-input P2WPKH PSBT."
    )

    @Option(help: "Inputs of the PSBT (P2WPKH, each with its previous transaction).") var inputs: Int = 1_445
    @Option(help: "Vault unlocks to time; the median and the fastest are reported.") var unlocks: Int = 3
    @Option(help: "Sign repetitions; the fastest is reported.") var repetitions: Int = 3
    @Option(help: "Argon2id memory in MiB for the unlock (default: the vault default, 256).") var kdfMemory: Int = 256
    @Option(help: "Argon2id passes for the unlock (default: the vault default, 3).") var kdfPasses: Int = 3
    @Flag(help: "Machine-readable JSON on stdout.") var json = false

    func validate() throws {
        guard inputs >= 1, unlocks >= 1, repetitions >= 1 else {
            throw ValidationError("--inputs, --unlocks and --repetitions must be at least 1")
        }
    }

    static let mnemonic =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    func run() throws {
        let unlock = try Self.unlockTimes(
            count: unlocks, kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: kdfPasses))
        let sign = try Self.signTimes(inputs: inputs, repetitions: repetitions)
        let sortedUnlock = unlock.sorted()
        let median = sortedUnlock[sortedUnlock.count / 2]
        if json {
            let object: [String: Any] = [
                "benchmark": "signer",
                "kdf": ["memory_mib": kdfMemory, "passes": kdfPasses],
                "unlock_seconds": ["median": median, "best": sortedUnlock[0], "all": unlock],
                "sign": [
                    "inputs": inputs, "psbt_bytes": sign.psbtBytes, "signed_bytes": sign.signedBytes,
                    "parse_seconds": sign.parse, "review_seconds": sign.review, "sign_seconds": sign.sign,
                    "serialize_seconds": sign.serialize, "total_seconds": sign.total,
                    "microseconds_per_input": sign.total / Double(inputs) * 1e6,
                ],
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(
                "vault unlock (Argon2id \(kdfMemory) MiB / \(kdfPasses) passes): median \(Self.fmt(median)) s, "
                    + "best \(Self.fmt(sortedUnlock[0])) s over \(unlocks)")
            print(
                "sign \(inputs)-input P2WPKH PSBT (\(sign.psbtBytes) bytes in, \(sign.signedBytes) out), KDF excluded, best of \(repetitions):"
            )
            print(
                "  parse \(Self.fmt(sign.parse)) s, review \(Self.fmt(sign.review)) s, sign \(Self.fmt(sign.sign)) s, "
                    + "trim+serialize \(Self.fmt(sign.serialize)) s")
            print(
                "  total \(Self.fmt(sign.total)) s (\(String(format: "%.1f", sign.total / Double(inputs) * 1e6)) µs/input)"
            )
        }
    }

    // MARK: Unlock

    static func unlockTimes(count: Int, kdf: Argon2Parameters) throws -> [Double] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "airlock-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = Vault(path: directory.appendingPathComponent("vault.airlock").path)
        let password = SecretBytes(utf8: "correct horse battery staple")
        try vault.create(
            mnemonic: try Mnemonic(phrase: mnemonic), passphrase: nil, storePassphrase: false, network: .regtest,
            password: password, kdf: kdf)
        var times: [Double] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            let unlocked = try vault.unlock(password: password)
            times.append(seconds(since: start))
            precondition(unlocked.network == .regtest)
        }
        return times
    }

    // MARK: Sign

    struct SignTimes {
        var psbtBytes = 0
        var signedBytes = 0
        var parse = Double.infinity
        var review = Double.infinity
        var sign = Double.infinity
        var serialize = Double.infinity
        var total = Double.infinity
    }

    /// A PSBT as a coordinator makes it: `inputs` coins of the BIP84 account (receive indexes 0…), each with its own
    /// previous transaction, witness UTXO and derivation; one payment out and a change output with its derivation.
    static func psbt(inputs: Int, master: ExtendedPrivateKey, network: Network) throws -> [UInt8] {
        let account = try AccountKey(master: master, script: .wpkh, account: 0, network: network)
        guard let descriptor = account.descriptor else { throw ValidationError("no descriptor") }
        var previous: [Transaction] = []
        var origins: [(PublicKey, KeyOrigin)] = []
        let accountNode = try master.derive(account.origin.path)
        for index in 0..<inputs {
            let script = try descriptor.scriptPubKey(at: UInt32(index), path: 0)
            var txid = [UInt8](repeating: 0, count: 32)
            withUnsafeBytes(of: UInt32(index).littleEndian) { txid.replaceSubrange(0..<4, with: $0) }
            previous.append(
                Transaction(
                    inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: txid), vout: 0))],
                    outputs: [TxOut(value: try Amount(sats: 10_000 + UInt64(index)), scriptPubKey: script)]))
            guard let origin = account.addressOrigin(change: false, index: UInt32(index)) else {
                throw ValidationError("no origin")
            }
            let key = try accountNode.derive(DerivationPath(string: "m/0/\(index)")).publicKey
            origins.append((key, origin))
        }
        let total = previous.reduce(UInt64(0)) { $0 + $1.outputs[0].value.sats }
        let fee = UInt64(inputs) * 70 * 2
        let send = total / 2
        let external = try Script(hex: "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262")
        let transaction = Transaction(
            inputs: previous.map { TxIn(previousOutput: OutPoint(txid: $0.txid, vout: 0), sequence: .replaceByFee) },
            outputs: [
                TxOut(value: try Amount(sats: send), scriptPubKey: external),
                TxOut(
                    value: try Amount(sats: total - send - fee),
                    scriptPubKey: try descriptor.scriptPubKey(at: 0, path: 1)),
            ])
        var psbt = try PSBT(unsignedTransaction: transaction)
        for (index, tx) in previous.enumerated() {
            psbt.setNonWitnessUTXO(tx, input: index)
            psbt.setWitnessUTXO(tx.outputs[0], input: index)
            psbt.addBIP32Derivation(origins[index].0, origin: origins[index].1, input: index)
        }
        guard let changeOrigin = account.addressOrigin(change: true, index: 0) else {
            throw ValidationError("no origin")
        }
        psbt.addBIP32Derivation(
            try accountNode.derive(DerivationPath(string: "m/1/0")).publicKey, origin: changeOrigin, output: 1)
        return psbt.serialized()
    }

    static func signTimes(inputs: Int, repetitions: Int) throws -> SignTimes {
        let network = Network.regtest
        let master = try ExtendedPrivateKey(seed: try Mnemonic(phrase: mnemonic).seed(), network: network)
        let bytes = try psbt(inputs: inputs, master: master, network: network)
        var best = SignTimes()
        best.psbtBytes = bytes.count
        for _ in 0..<repetitions {
            let t0 = ContinuousClock.now
            let psbt = try PSBT(anyEncoding: bytes)
            let t1 = ContinuousClock.now
            // As `airlock-signer sign` does: the accounts the derivations name, re-derived from the seed.
            let account = try AccountKey(master: master, script: .wpkh, account: 0, network: network)
            let policy = SigningPolicy(network: network)
            let review = try TransactionReview(psbt, accounts: [account.descriptor].compactMap { $0 }, policy: policy)
            guard review.isAcceptable else { throw ValidationError("refused: \(review.refusals)") }
            _ = review.text
            let t2 = ContinuousClock.now
            let report = try PSBTSigner(options: policy.signingOptions).sign(
                psbt, with: SeedKeyProvider(master: master))
            guard report.signedInputs.count == inputs else {
                throw ValidationError("signed \(report.signedInputs.count)")
            }
            let t3 = ContinuousClock.now
            let out = report.psbt.trimmedForCoordinator().serialized()
            let t4 = ContinuousClock.now
            best.signedBytes = out.count
            best.parse = min(best.parse, seconds(t0, t1))
            best.review = min(best.review, seconds(t1, t2))
            best.sign = min(best.sign, seconds(t2, t3))
            best.serialize = min(best.serialize, seconds(t3, t4))
            best.total = min(best.total, seconds(t0, t4))
        }
        return best
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double { seconds(start, .now) }

    static func seconds(_ a: ContinuousClock.Instant, _ b: ContinuousClock.Instant) -> Double {
        let d = a.duration(to: b)
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    static func fmt(_ value: Double) -> String { String(format: "%.3f", value) }
}
