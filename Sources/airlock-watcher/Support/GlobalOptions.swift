import ArgumentParser
import Foundation

/// Options every command takes (docs/architecture.md section 2).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"), help: "Data directory (default: $AIRLOCK_HOME, else ~/.local/share/airlock).")
    var dataDir: String?

    @Option(help: "The wallet to use (default: the only wallet).")
    var wallet: String?

    @Flag(help: "Machine-readable JSON on stdout.")
    var json = false

    /// The data directory in force.
    var resolvedDataDir: String { Self.dataDirectory(dataDir) }

    /// The data directory for a `--data-dir` value (or none).
    static func dataDirectory(_ dataDir: String?) -> String {
        if let dataDir, !dataDir.isEmpty { return (dataDir as NSString).expandingTildeInPath }
        if let env = ProcessInfo.processInfo.environment["AIRLOCK_HOME"], !env.isEmpty { return env }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/share/airlock")
    }
}
