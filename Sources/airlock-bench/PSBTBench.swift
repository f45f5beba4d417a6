import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Descriptors
import Foundation
import SeedBackup
import Signer

extension AirlockBench {
    /// `airlock-bench psbt`: signs a 1,445-input P2WPKH PSBT and a 500-input P2TR PSBT, and parses and serializes a
    /// PSBT of about 2 MB; `--write-psbt DIR` leaves the same files for the peers (scripts/bench).
    struct PSBTBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "psbt",
            abstract: "PSBT signing (1,445 P2WPKH, 500 P2TR inputs; alone and the whole sign), parse+serialize 2 MB."
        )

        @Option(help: "Timed runs per workload; the median is reported.") var runs: Int = 5
        @Option(help: "Write the workloads' PSBTs (binary) and workloads.json to this directory.")
        var writePsbt: String?
        @Flag(help: "Print one JSON object on stdout.") var json = false

        func validate() throws {
            if runs < 1 { throw ValidationError("--runs must be at least 1") }
        }

        /// The public BIP39 test mnemonic the workloads spend from (BIP39 reference vector 0).
        static let mnemonic =
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

        struct Workload {
            let name: String
            let kind: String
            let accountPath: String
            let operation: String
            let psbt: PSBT
        }

        /// One workload's times.
        ///
        /// `medianMilliseconds` is process CPU time, which a shared machine disturbs far less
        /// than the wall-clock time reported beside it; the work is single-threaded, so the two agree on an idle one.
        struct Result: Codable {
            let name: String
            let operation: String
            let inputs: Int
            let bytes: Int
            let medianMilliseconds: Double
            let medianWallMilliseconds: Double
            let runsMilliseconds: [Double]
            /// Sign workloads: the libsecp256k1 floor measured in the same run, and Airlock's time as a multiple of it.
            var floorMilliseconds: Double?
            var floorMultiple: Double?
        }

        func run() throws {
            let master = try ExtendedPrivateKey(seed: try Mnemonic(phrase: Self.mnemonic).seed(), network: .regtest)
            let workloads = [
                Workload(
                    name: "sign-p2wpkh-1445", kind: "wpkh", accountPath: "84h/1h/0h", operation: "sign",
                    psbt: try Self.psbt(master, kind: "wpkh", path: "84h/1h/0h", inputs: 1_445, funding: 17)),
                Workload(
                    name: "sign-p2tr-500", kind: "tr", accountPath: "86h/1h/0h", operation: "sign",
                    psbt: try Self.psbt(master, kind: "tr", path: "86h/1h/0h", inputs: 500, funding: 0)),
                Workload(
                    name: "parse-serialize-2mb", kind: "wpkh", accountPath: "84h/1h/0h", operation: "parse-serialize",
                    psbt: try Self.psbt(master, kind: "wpkh", path: "84h/1h/0h", inputs: 700, funding: 8)),
            ]
            if let writePsbt { try write(workloads, to: writePsbt) }
            var results: [Result] = []
            for workload in workloads {
                let bytes = workload.psbt.serialized()
                var times: [Double] = []
                var wallTimes: [Double] = []
                var signed: PSBT?
                for _ in 0..<runs {
                    switch workload.operation {
                    case "sign":
                        // A fresh provider each run: its account cache starts cold, as on a signing device; and a
                        // freshly parsed PSBT, as the peers get, so no run reuses what an earlier one decoded.
                        let provider = SeedKeyProvider(master: master)
                        let parsed = try PSBT(serialized: bytes)
                        var report: SigningReport?
                        let (cpu, wall) = try Self.milliseconds {
                            report = try PSBTSigner().sign(parsed, with: provider)
                        }
                        times.append(cpu)
                        wallTimes.append(wall)
                        guard let report, report.signedInputs.count == workload.psbt.inputs.count else {
                            throw ValidationError("\(workload.name): not every input was signed")
                        }
                        signed = report.psbt
                    default:
                        var again: [UInt8] = []
                        let (cpu, wall) = try Self.milliseconds { again = try PSBT(serialized: bytes).serialized() }
                        times.append(cpu)
                        wallTimes.append(wall)
                        guard again == bytes else { throw ValidationError("\(workload.name): round trip differs") }
                    }
                }
                var result = Result(
                    name: workload.name, operation: workload.operation, inputs: workload.psbt.inputs.count,
                    bytes: bytes.count, medianMilliseconds: Self.median(times),
                    medianWallMilliseconds: Self.median(wallTimes), runsMilliseconds: times)
                if let signed, let writePsbt {
                    // The answer, for scripts/bench to verify and to compare with BDK's.
                    try Data(signed.serialized()).write(
                        to: URL(fileURLWithPath: writePsbt).appendingPathComponent(workload.name + ".signed.psbt"))
                }
                if workload.operation == "sign" {
                    let floor = try Self.floorMilliseconds(
                        master, kind: workload.kind, path: workload.accountPath, inputs: workload.psbt.inputs.count,
                        runs: runs)
                    result.floorMilliseconds = floor
                    result.floorMultiple = result.medianMilliseconds / floor
                    results.append(result)
                    // The whole `sign` command on the same PSBT, beside the same floor (issue 33 item 1).
                    var command = try Self.signCommand(
                        master, name: workload.name.replacingOccurrences(of: "sign-", with: "sign-command-"),
                        bytes: bytes, inputs: workload.psbt.inputs.count, runs: runs, writeTo: writePsbt)
                    command.floorMilliseconds = floor
                    command.floorMultiple = command.medianMilliseconds / floor
                    results.append(command)
                    continue
                }
                results.append(result)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(Report(runs: runs, results: results)), as: UTF8.self))
            } else {
                print("PSBT workloads (median of \(runs) runs)")
                print("workload                   inputs       bytes    CPU ms   wall ms  floor ms  × floor")
                for r in results {
                    let name = r.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                    let floor = r.floorMilliseconds.map { String(format: "%9.2f", $0) } ?? ""
                    let multiple = r.floorMultiple.map { String(format: "%8.2f", $0) } ?? ""
                    print(
                        String(
                            format: "%@ %8d %11d %9.2f %9.2f", name, r.inputs, r.bytes, r.medianMilliseconds,
                            r.medianWallMilliseconds) + " " + floor + " " + multiple)
                }
                print("floor: per input, libsecp256k1's work alone on keys derived beforehand (untimed): P2WPKH")
                print("  key check (secp256k1_ec_pubkey_create) + ECDSA sign with the same low-R grinding; P2TR")
                print("  keypair_create + keypair_xonly_tweak_add + schnorrsig_sign")
                print("sign-command-*: the whole sign after the unlock (parse, review, sign, answer), same floor")
            }
        }

        struct Report: Codable {
            var benchmark = "psbt"
            let runs: Int
            let results: [Result]
        }

        /// The median process CPU time of libsecp256k1's work alone for `inputs` signatures of the account at `path`.
        ///
        /// The keys (receive branch, indexes 0…) are derived before the clock starts and each input gets its own
        /// 32-byte message. ECDSA (P2WPKH): `PrivateKey(secret:)` (secp256k1_ec_seckey_verify +
        /// secp256k1_ec_pubkey_create, the public-key check a signer must make) and `signECDSA` with low-R grinding,
        /// as the signer signs. Taproot: `TaprootKeyPair(internalSecret:)` (keypair_create + keypair_xonly_tweak_add)
        /// and a Schnorr signature. Every signature is verified after the clock stops.
        static func floorMilliseconds(
            _ master: ExtendedPrivateKey, kind: String, path: String, inputs: Int, runs: Int
        ) throws -> Double {
            let branch = try master.derive(try DerivationPath(string: "m/" + path + "/0"))
            let secrets = try (0..<inputs).map {
                try branch.deriveChild(ChildNumber(rawValue: UInt32($0))).privateKey.secret
            }
            let messages = (0..<inputs).map { SHA256.hash(Array("airlock-bench floor \($0)".utf8)) }
            var times: [Double] = []
            for _ in 0..<runs {
                var verified = 0
                if kind == "tr" {
                    var signed: [(XOnlyPublicKey, SchnorrSignature)] = []
                    signed.reserveCapacity(inputs)
                    let (cpu, _) = try Self.milliseconds {
                        for index in 0..<inputs {
                            let pair = try TaprootKeyPair(internalSecret: secrets[index], merkleRoot: nil)
                            signed.append((pair.outputKey, try pair.signSchnorr(message: messages[index])))
                        }
                    }
                    times.append(cpu)
                    for (index, (key, signature)) in signed.enumerated()
                    where key.verify(signature, message: messages[index]) {
                        verified += 1
                    }
                } else {
                    var signed: [(PublicKey, ECDSASignature)] = []
                    signed.reserveCapacity(inputs)
                    let (cpu, _) = try Self.milliseconds {
                        for index in 0..<inputs {
                            let key = try PrivateKey(secret: secrets[index])
                            signed.append((key.publicKey, try key.signECDSA(digest: messages[index], grindLowR: true)))
                        }
                    }
                    times.append(cpu)
                    for (index, (key, signature)) in signed.enumerated()
                    where key.verify(signature, digest: messages[index]) {
                        verified += 1
                    }
                }
                guard verified == inputs else {
                    throw ValidationError("floor (\(kind)): \(inputs - verified) signatures do not verify")
                }
            }
            return Self.median(times)
        }

        /// Writes each workload as `NAME.psbt` (binary) and describes them in `workloads.json` for the peers.
        func write(_ workloads: [Workload], to directory: String) throws {
            let url = URL(fileURLWithPath: directory)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            var entries: [[String: Any]] = []
            for workload in workloads {
                let file = workload.name + ".psbt"
                try Data(workload.psbt.serialized()).write(to: url.appendingPathComponent(file))
                entries.append([
                    "name": workload.name, "file": file, "operation": workload.operation, "kind": workload.kind,
                    "account_path": workload.accountPath, "inputs": workload.psbt.inputs.count,
                    "signed_file": workload.name + ".signed.psbt",
                ])
            }
            let object: [String: Any] = ["mnemonic": Self.mnemonic, "network": "regtest", "workloads": entries]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: url.appendingPathComponent("workloads.json"))
        }

        /// The process CPU time and the wall-clock time of `body`, in milliseconds.
        static func milliseconds(_ body: () throws -> Void) throws -> (cpu: Double, wall: Double) {
            let cpuStart = cpuMilliseconds()
            let start = ContinuousClock.now
            try body()
            let elapsed = start.duration(to: .now)
            let wall = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) * 1e3
            return (cpuMilliseconds() - cpuStart, wall)
        }

        static func cpuMilliseconds() -> Double {
            var time = timespec()
            guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return .nan }
            return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) * 1e-6
        }

        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }

        /// A PSBT spending `inputs` coins of the account at `path` (receive branch, indexes 0…).
        ///
        /// The coins go to one payee and a change output. With `funding` > 0 the coins come from that many synthetic transactions, each carried whole
        /// as the inputs' non-witness UTXO (as the strict signer wants for segwit v0); with 0, only witness UTXOs.
        static func psbt(
            _ master: ExtendedPrivateKey, kind: String, path: String, inputs count: Int, funding: Int
        ) throws -> PSBT {
            let account = try master.derive(try DerivationPath(string: "m/" + path))
            let key = "[\(master.fingerprint)/\(path)]\(account.extendedPublicKey.base58String)/<0;1>/*"
            let descriptor = try Descriptor(string: kind == "tr" ? "tr(\(key))" : "wpkh(\(key))")
            let amount = try Amount(sats: 100_000)
            var coins: [DescriptorCoin] = []
            if funding > 0 {
                let perTransaction = (count + funding - 1) / funding
                var index = 0
                for number in 0..<funding {
                    let fake = try Txid(bytes: SHA256.hash(Array("airlock-bench funding \(kind) \(number)".utf8)))
                    var outputs: [TxOut] = []
                    while outputs.count < perTransaction, index + outputs.count < count {
                        let script = try descriptor.scriptPubKey(at: UInt32(index + outputs.count), path: 0)
                        outputs.append(TxOut(value: amount, scriptPubKey: script))
                    }
                    let transaction = Transaction(
                        inputs: [TxIn(previousOutput: OutPoint(txid: fake, vout: 0))], outputs: outputs)
                    for vout in outputs.indices {
                        coins.append(
                            DescriptorCoin(
                                outpoint: OutPoint(txid: transaction.txid, vout: UInt32(vout)), amount: amount,
                                index: UInt32(index + vout), previousTransaction: transaction))
                    }
                    index += outputs.count
                }
            } else {
                for index in 0..<count {
                    let fake = try Txid(bytes: SHA256.hash(Array("airlock-bench coin \(kind) \(index)".utf8)))
                    coins.append(
                        DescriptorCoin(outpoint: OutPoint(txid: fake, vout: 1), amount: amount, index: UInt32(index)))
                }
            }
            let total = UInt64(count) * amount.sats
            let payee = Script.p2wpkh(try PubkeyHash(bytes: [UInt8](repeating: 0x42, count: 20)))
            let outputs = [
                TxOut(value: try Amount(sats: total / 2), scriptPubKey: payee),
                TxOut(
                    value: try Amount(sats: total / 2 - UInt64(count) * 100),
                    scriptPubKey: try descriptor.scriptPubKey(at: 0, path: 1)),
            ]
            return try PSBT(spending: coins, of: descriptor, to: outputs, change: [1: (path: 1, index: 0)])
        }
    }
}
