import ChainCore
import Codecs
import Foundation

/// Where a Bitcoin Core rescan starts for newly imported descriptors: the wallet's birthday.
public enum RescanStart: Sendable, Equatable {
    /// From this block height (the descriptors get that block's timestamp).
    case height(Int)
    /// From this Unix time (Core rescans from the first block within two hours before it).
    case timestamp(Int)
}

/// What the node reports of a rescan in progress (`getwalletinfo.scanning`).
public struct RescanStatus: Sendable, Equatable {
    /// 0...1.
    public var progress: Double
    /// Seconds the rescan has run.
    public var duration: Int

    public init(progress: Double, duration: Int) {
        self.progress = progress
        self.duration = duration
    }
}

extension BitcoinCoreRPC {
    /// How often a running rescan is polled.
    static let rescanPollInterval: Duration = .milliseconds(500)

    /// The `timestamp` of an `importdescriptors` request: the birthday's block time, the birthday date itself, or 0
    /// (genesis) without a birthday; `"now"` for a birthday height above the tip (nothing to rescan yet).
    func importTimestamp() async throws(ChainError) -> JSONValue {
        switch rescanStart {
        case nil:
            return 0
        case .timestamp(let time):
            return .number(Double(max(0, time)))
        case .height(let height):
            let tip = try await tip()
            guard height <= tip.height else { return "now" }
            let hash = try await call("getblockhash", [.number(Double(max(0, height)))])
            let header = try await call("getblockheader", [hash])
            guard let time = header["time"]?.int, time >= 0 else {
                throw .protocolViolation("getblockheader of height \(height) without a time")
            }
            return .number(Double(time))
        }
    }

    /// The node wallet's rescan, if one runs (`getwalletinfo.scanning` is an object rather than false).
    func scanning() async throws(ChainError) -> RescanStatus? {
        let info = try await call("getwalletinfo", onWallet: true)
        guard let scanning = info["scanning"], let progress = scanning["progress"]?.double else { return nil }
        guard progress.isFinite else { throw .protocolViolation("getwalletinfo: scanning.progress is not a number") }
        return RescanStatus(
            progress: min(max(progress, 0), 1), duration: max(0, scanning["duration"]?.int ?? 0))
    }

    /// Waits while the node wallet rescans (an import of an earlier, interrupted sync), reporting progress; returns
    /// whether there was one.
    func waitForRescan() async throws(ChainError) -> Bool {
        var waited = false
        while let status = try await scanning() {
            waited = true
            onRescan?(status)
            do {
                try await Task.sleep(for: Self.rescanPollInterval)
            } catch {
                throw .timeout(operation: "waiting for the node's rescan (cancelled)", seconds: status.duration)
            }
        }
        return waited
    }

    /// `importdescriptors`, which answers only once the node's rescan is over: sent on a connection of its own
    /// without the per-request time limit, while `getwalletinfo` is polled for the rescan's progress.
    func importDescriptors(_ requests: [JSONValue]) async throws(ChainError) -> JSONValue {
        let unbounded = HTTPClient(
            host: http.host, port: http.port, tls: nil, timeout: Int(Int32.max), proxy: http.proxy)
        let body = JSONValue.object([
            "jsonrpc": "1.0", "id": "airlock-import", "method": "importdescriptors", "params": [.array(requests)],
        ]).serialized()
        let headers = ["Authorization": try authorization(), "Content-Type": "application/json"]
        let path = walletPath
        let finished = DoneFlag()
        let importTask = Task { () async -> Result<JSONValue, ChainError> in
            defer { finished.set() }
            do throws(ChainError) {
                let response = try await unbounded.request(method: "POST", path: path, headers: headers, body: body)
                return .success(try Self.result(of: response, path: path))
            } catch {
                return .failure(error)
            }
        }
        var reported = false
        while !finished.isSet {
            // Short naps, so an import without much to rescan is not held up by the poll interval.
            for _ in 0..<10 where !finished.isSet { try? await Task.sleep(for: Self.rescanPollInterval / 10) }
            if finished.isSet { break }
            if let status = try? await scanning() {
                reported = true
                onRescan?(status)
            }
        }
        let result = try await importTask.value.get()
        if reported { onRescan?(RescanStatus(progress: 1, duration: 0)) }
        return result
    }

    /// The request path of the node wallet.
    var walletPath: String {
        guard let wallet else { return "/" }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return "/wallet/" + (wallet.addingPercentEncoding(withAllowedCharacters: allowed) ?? wallet)
    }

    /// The `result` of a JSON-RPC answer, or the node's error.
    static func result(of response: HTTPResponse, path: String) throws(ChainError) -> JSONValue {
        if response.status == 401 || response.status == 403 {
            throw .connectionFailed(
                host: path, port: 0, reason: "the node refused the RPC credentials (HTTP \(response.status))")
        }
        guard !response.body.isEmpty else { throw .http(status: response.status, body: "empty body on \(path)") }
        let value = try JSONValue.parse(response.body)
        if let error = value["error"], !error.isNull {
            throw .server(code: error["code"]?.int ?? 0, message: error["message"]?.string ?? "\(error)")
        }
        guard response.status == 200, let result = value["result"] else {
            throw .http(status: response.status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
        return result
    }
}

/// Set once, read from any task.
private final class DoneFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    var isSet: Bool { lock.withLock { done } }
    func set() { lock.withLock { done = true } }
}
