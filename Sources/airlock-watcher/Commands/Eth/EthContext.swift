import CLISupport
import ChainBackends
import ChainCore
import Ethereum
import Foundation
import Watcher
import WatcherEthereum

/// What an `eth` command works with.
///
/// The store and the node of `node set eth+http(s)://` (docs/architecture.md section 10), handed to the flows of
/// `EthereumFlows`. The only place that picks the concrete `EthereumNode`.
struct EthContext {
    let global: GlobalOptions
    let store: Store

    static let nodeURLKey = "eth.node.url"
    static let nodeProxyKey = "eth.node.proxy"

    init(_ global: GlobalOptions) throws {
        self.global = global
        store = try OpenStores.store(directory: global.resolvedDataDir)
    }

    func node() throws -> any EthereumNode {
        guard let text = try store.setting(Self.nodeURLKey) else {
            throw CLIError(.usage, "no Ethereum node configured: airlock-watcher node set eth+http://HOST:PORT")
        }
        let url = try EthereumNodeURL(string: text)
        let proxy = try store.setting(Self.nodeProxyKey).map { text throws(ChainError) in try SOCKSProxy(string: text) }
        let timeout =
            Int(ProcessInfo.processInfo.environment["AIRLOCK_NODE_TIMEOUT"] ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 30
        return EthereumRPC(host: url.host, port: url.port, path: url.path, tls: url.tls, timeout: timeout, proxy: proxy)
    }
}

/// Prints the request `send` or `bump` built: written to the files of `output` (or printed as UR text), then as JSON
/// or as its summary.
enum EthRequestOutput {
    static func print(_ report: EthereumRequestReport, output: OutputOptions, json: Bool) throws {
        let written = try output.write(
            .ethSignRequest(report.request), fileBytes: Array((report.ur + "\n").utf8), json: json)
        if json { return try JSONOutput.print(report.json(written: written), files: written) }
        if !output.isRequested { Swift.print(report.ur) }
        Diagnostics.print(report.summary)
        OutputOptions.printWritten(written)
    }
}

/// Prints each of `lines` on stdout (none for none).
func printLines(_ lines: [String]) {
    for line in lines { print(line) }
}
