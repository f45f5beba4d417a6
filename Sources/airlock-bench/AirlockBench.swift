import ArgumentParser

/// `airlock-bench`: Airlock's side of the benchmarks that `scripts/bench` runs against peers (docs/architecture.md section 9).
@main
struct AirlockBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-bench",
        abstract: "Benchmarks of Airlock's workloads; scripts/bench runs the peers' side in the same run.",
        subcommands: [
            QRDecode.self, QRFrames.self, SighashBench.self, CoinSelectionBench.self, PSBTBench.self, SignerBench.self,
            QRPSBTFrames.self, SignOnce.self, EthereumBench.self, QRCameraFrames.self, QRCameraDecode.self,
        ]
    )
}
