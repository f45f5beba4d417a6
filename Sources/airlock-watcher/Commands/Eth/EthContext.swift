import CLISupport
import ChainBackends
import ChainCore
import Ethereum
import Foundation
import Watcher

/// What an `eth` command works with.
///
/// The store, the chosen Ethereum account and the node of `node set eth+http(s)://`
/// (docs/architecture.md section 10). The only place that picks the concrete `EthereumNode`.
struct EthContext {
    let global: GlobalOptions
    let store: Store

    static let nodeURLKey = "eth.node.url"
    static let nodeProxyKey = "eth.node.proxy"

    init(_ global: GlobalOptions) throws {
        self.global = global
        store = try OpenStores.store(directory: global.resolvedDataDir)
    }

    func account() throws -> EthereumAccount { try store.ethereumAccount(named: global.wallet) }

    func node() throws -> EthereumRPC {
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

/// Parses `--amount`: `0.1eth`, `5gwei`, `100wei`; a number without its unit is refused (exit 1).
func parseEtherAmount(_ text: String) throws -> Wei {
    let lower = text.lowercased()
    // A bare number is refused (DESIGN section 11): 0.1 ETH and 0.1 gwei differ by a factor of a billion.
    if !lower.isEmpty, lower.allSatisfy({ $0.isNumber || $0 == "." }) {
        throw CLIError(.usage, "--amount \(text) has no unit: write \(text)eth, \(text)gwei or \(text)wei")
    }
    do {
        if lower.hasSuffix("gwei") {
            let units = try EthereumSpend.baseUnits(String(lower.dropLast(4)), decimals: 9)
            return Wei(units)
        }
        if lower.hasSuffix("wei") { return Wei(try EthereumSpend.baseUnits(String(lower.dropLast(3)), decimals: 0)) }
        let number = lower.hasSuffix("eth") ? String(lower.dropLast(3)) : lower
        return Wei(try EthereumSpend.baseUnits(number, decimals: 18))
    } catch {
        throw CLIError(.invalidInput, "invalid --amount '\(text)': use 0.1eth, 5gwei or 100wei")
    }
}

/// Parses a gwei amount (`--max-fee`, `--priority-fee`) into wei.
func parseGwei(_ text: String, option: String) throws -> UInt256 {
    do { return try EthereumSpend.baseUnits(text, decimals: 9) } catch {
        throw CLIError(.invalidInput, "invalid \(option) '\(text)': a number of gwei with at most 9 decimals")
    }
}

func parseAddressArgument(_ text: String, what: String) throws -> EthereumAddress {
    do { return try EthereumAddress(string: text) } catch {
        throw CLIError(.invalidInput, "\(what) '\(text)' is not an Ethereum address (0x and 40 hex digits, EIP-55)")
    }
}
