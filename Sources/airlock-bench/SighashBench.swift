import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Foundation

/// `airlock-bench sighash`: BIP341 signature hashes (SIGHASH_DEFAULT) for every input of transactions of growing
/// size, with and without the Schnorr signature, to show that the per-transaction hashes are computed once.
struct SighashBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sighash",
        abstract: "BIP341 sighash (and Schnorr signing) of every input, for transactions of 10 to 2,000 inputs."
    )

    @Option(help: "Comma-separated input counts.")
    var inputs: String = "10,100,1000,2000"

    @Option(help: "Repetitions per size; the fastest is reported.")
    var repetitions: Int = 3

    @Flag(help: "Machine-readable JSON on stdout.")
    var json = false

    func validate() throws {
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { throw ValidationError("bad --inputs list") }
    }

    var sizes: [Int] { inputs.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    struct Result: Codable {
        let inputs: Int
        let sighashSeconds: Double
        let sighashMicrosecondsPerInput: Double
        let signSeconds: Double
        let signMicrosecondsPerInput: Double
    }

    func run() throws {
        let key = PrivateKey.random()
        let tweaked = try key.taprootTweaked(merkleRoot: nil)
        let outputKey = try key.xOnlyPublicKey.taprootOutputKey(merkleRoot: nil).key
        var results: [Result] = []
        for count in sizes {
            let (tx, spent) = try Self.transaction(inputs: count, outputKey: outputKey)
            var bestSighash = Double.infinity
            var bestSign = Double.infinity
            for _ in 0..<repetitions {
                let sighash = try Self.seconds {
                    var cache = SighashCache(tx, spentOutputs: spent)
                    for index in 0..<count { _ = try cache.taprootSignatureHash(inputIndex: index, type: .default) }
                }
                let sign = try Self.seconds {
                    var cache = SighashCache(tx, spentOutputs: spent)
                    for index in 0..<count {
                        let digest = try cache.taprootSignatureHash(inputIndex: index, type: .default)
                        _ = try tweaked.signSchnorr(message: digest)
                    }
                }
                bestSighash = min(bestSighash, sighash)
                bestSign = min(bestSign, sign)
            }
            results.append(
                Result(
                    inputs: count, sighashSeconds: bestSighash,
                    sighashMicrosecondsPerInput: bestSighash * 1e6 / Double(count), signSeconds: bestSign,
                    signMicrosecondsPerInput: bestSign * 1e6 / Double(count)))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(Report(results: results)), as: UTF8.self))
        } else {
            print("BIP341 SIGHASH_DEFAULT, every input (best of \(repetitions))")
            print("inputs   sighash total   µs/input   sighash+sign total   µs/input")
            for r in results {
                print(
                    String(
                        format: "%6d   %11.6f s   %8.2f   %16.6f s   %8.2f", r.inputs, r.sighashSeconds,
                        r.sighashMicrosecondsPerInput, r.signSeconds, r.signMicrosecondsPerInput))
            }
        }
    }

    struct Report: Codable {
        var benchmark = "sighash-bip341-default"
        let results: [Result]
    }

    static func seconds(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// A version-2 transaction spending `inputs` P2TR outputs to two outputs.
    static func transaction(inputs count: Int, outputKey: XOnlyPublicKey) throws -> (Transaction, [TxOut]) {
        let script = Script.p2tr(outputKey: outputKey)
        var inputs: [TxIn] = []
        var spent: [TxOut] = []
        for index in 0..<count {
            let txid = try Txid(bytes: SHA256.hash(Array("input \(index)".utf8)))
            inputs.append(TxIn(previousOutput: OutPoint(txid: txid, vout: UInt32(index % 4)), sequence: .replaceByFee))
            spent.append(TxOut(value: try Amount(sats: 10_000 + UInt64(index)), scriptPubKey: script))
        }
        let outputs = [
            TxOut(value: try Amount(sats: 5_000), scriptPubKey: script),
            TxOut(
                value: try Amount(sats: 4_000),
                scriptPubKey: .p2wpkh(try PubkeyHash(bytes: [UInt8](repeating: 1, count: 20)))),
        ]
        return (Transaction(version: 2, inputs: inputs, outputs: outputs), spent)
    }
}
