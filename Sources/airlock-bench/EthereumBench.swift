import ArgumentParser
import Bitcoin
import BitcoinCrypto
import Ethereum
import Foundation
import SeedBackup

/// `airlock-bench eth`: Airlock's side of the Ethereum section of `scripts/bench` (beside eth-account).
///
/// It derives N addresses `m/44'/60'/0'/0/i` from the seed (each path from the master key, as eth-account's `key_from_seed` does)
/// and sign N EIP-1559 transactions (nonce i, otherwise fixed fields) with the key of index 0, each hashed, signed
/// with RFC 6979 and serialized. Writes the addresses and raw transactions so the peer's can be compared byte for byte.
struct EthereumBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eth",
        abstract: "Derive N Ethereum addresses and sign N EIP-1559 transactions (the eth-account comparison)."
    )

    @Option(help: "The BIP39 mnemonic.")
    var mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    @Option(help: "Addresses and transactions per run.") var count = 1000
    @Option(help: "Timed runs; medians are reported.") var runs = 5
    @Option(help: "Write addresses.json and transactions.json (hex) into DIR.") var write: String?
    @Option(help: "The transactions' chain id.") var chainID: UInt64 = 1

    func validate() throws {
        guard count >= 1, runs >= 1 else { throw ValidationError("--count and --runs must be at least 1") }
    }

    struct Output: Encodable {
        let count: Int
        let runs: Int
        let deriveCPUms: Double
        let deriveWallMs: Double
        let signCPUms: Double
        let signWallMs: Double
    }

    func run() throws {
        let words = try Mnemonic(phrase: mnemonic)
        let master = try ExtendedPrivateKey(seed: words.seed(), network: .main)
        var addresses: [String] = []
        var raws: [String] = []
        var derive: [(Double, Double)] = []
        var sign: [(Double, Double)] = []
        let recipient = try EthereumAddress(string: "0x" + String(repeating: "35", count: 20))
        for _ in 0..<runs {
            var found: [String] = []
            derive.append(
                try Self.measure {
                    for index in 0..<count {
                        let path = try DerivationPath(string: "m/44'/60'/0'/0/\(index)")
                        found.append(try master.derive(path).privateKey.ethereumAddress.checksummed)
                    }
                })
            addresses = found
            let key = try master.derive(DerivationPath(string: "m/44'/60'/0'/0/0")).privateKey
            var signed: [[UInt8]] = []
            sign.append(
                try Self.measure {
                    for nonce in 0..<count {
                        let tx = EthereumTransaction(
                            kind: .dynamicFee(
                                maxPriorityFeePerGas: UInt256(1_500_000_000), maxFeePerGas: UInt256(30_000_000_000)),
                            chainID: chainID, nonce: UInt64(nonce), gasLimit: 21_000, to: recipient,
                            value: Wei(UInt256(1_000_000_000_000_000)), data: [])
                        let signature = try key.signRecoverable(digest: tx.signingHash)
                        signed.append(try tx.signedSerialized(signature: signature))
                    }
                })
            raws = signed.map { "0x" + $0.hexString }
        }
        if let write {
            try FileManager.default.createDirectory(atPath: write, withIntermediateDirectories: true)
            try JSONEncoder().encode(addresses).write(to: URL(fileURLWithPath: write + "/addresses.json"))
            try JSONEncoder().encode(raws).write(to: URL(fileURLWithPath: write + "/transactions.json"))
        }
        let output = Output(
            count: count, runs: runs, deriveCPUms: Self.median(derive.map(\.0)),
            deriveWallMs: Self.median(derive.map(\.1)), signCPUms: Self.median(sign.map(\.0)),
            signWallMs: Self.median(sign.map(\.1)))
        print(String(decoding: try JSONEncoder().encode(output), as: UTF8.self))
    }

    /// Process CPU and wall milliseconds of `body`.
    static func measure(_ body: () throws -> Void) throws -> (Double, Double) {
        func cpu() -> Double {
            var time = timespec()
            guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return .nan }
            return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) * 1e-6
        }
        let cpuStart = cpu()
        let start = ContinuousClock.now
        try body()
        let elapsed = start.duration(to: .now)
        let wall = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) * 1e3
        return (cpu() - cpuStart, wall)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
