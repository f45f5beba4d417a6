import ArgumentParser
import Bitcoin
import Foundation
import Watcher

/// `airlock-bench coinselect`: branch-and-bound with the single-random-draw fallback over a pool of UTXOs of spread-out
/// values, for several payment amounts; reports the fastest of the repetitions.
struct CoinSelectionBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coinselect",
        abstract: "Coin selection (BnB, then SRD) over a pool of 10,000 UTXOs by default."
    )

    @Option(help: "Number of UTXOs in the pool.")
    var utxos: Int = 10_000

    @Option(help: "Repetitions per payment; the fastest is reported.")
    var repetitions: Int = 3

    @Option(help: "Fee rate in sat/vB.")
    var feeRate: UInt64 = 5

    @Flag(help: "Machine-readable JSON on stdout.")
    var json = false

    func validate() throws {
        guard utxos >= 1, utxos <= 1_000_000 else { throw ValidationError("--utxos must be 1...1,000,000") }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    }

    struct Result: Codable {
        let utxos: Int
        let targetSats: UInt64
        let algorithm: String
        let inputs: Int
        let waste: Int64
        let seconds: Double
    }

    func run() throws {
        var generator = SplitMix64(seed: 42)  // fixed, so every run measures the same pool and draws
        var pool: [CoinCandidate] = []
        for i in 0..<utxos {
            // Values from 1,000 sat to ~1 BTC, log-uniform, like a long-used wallet.
            let exponent = Double(generator.next() % 10_000) / 10_000 * 5 + 3
            let sats = UInt64(pow(10, exponent))
            let txid = try Txid(bytes: (0..<32).map { UInt8(truncatingIfNeeded: (i >> ($0 % 4 * 8)) &+ $0) })
            pool.append(
                CoinCandidate(
                    outpoint: OutPoint(txid: txid, vout: UInt32(i % 4)), value: try Amount(sats: sats), inputVSize: 68))
        }
        let parameters = SelectionParameters(
            feeRate: try FeeRate(satsPerVByte: feeRate), baseVSize: 11 + 31)
        var results: [Result] = []
        for target: UInt64 in [50_000, 1_000_000, 25_000_000, 200_000_000] {
            var best = Double.infinity
            var last: CoinSelectionResult?
            for _ in 0..<repetitions {
                var draw = SplitMix64(seed: 7)
                let start = DispatchTime.now().uptimeNanoseconds
                last = try? CoinSelection.select(
                    from: pool, target: try Amount(sats: target), parameters: parameters, using: &draw)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            results.append(
                Result(
                    utxos: utxos, targetSats: target, algorithm: last?.algorithm.rawValue ?? "insufficient",
                    inputs: last?.selected.count ?? 0, waste: last?.waste ?? 0, seconds: best))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
            print("utxos  target(sat)  algorithm  inputs  waste  seconds")
            for r in results {
                print(
                    "\(r.utxos)  \(r.targetSats)  \(r.algorithm)  \(r.inputs)  \(r.waste)  \(String(format: "%.4f", r.seconds))"
                )
            }
        }
    }
}
