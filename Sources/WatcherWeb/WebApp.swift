import AirgapTransport
import Bitcoin
import BitcoinCrypto
import ChainCore
import Codecs
import Ethereum
import Foundation
import QRImage
import Watcher
import WatcherEthereum
import WatcherFlows

/// What the web app needs from the executable: the store and the node clients (the executable is the only place that
/// picks a concrete `ChainSource`, docs/architecture.md rule R8).
public struct WebConfiguration: Sendable {
    public var store: Store
    /// Serve the pages without send, broadcast or edits.
    public var readOnly: Bool
    /// Connects to the Bitcoin node for `wallet` (its network checked), as `WatcherContext.connect`.
    public var connect: @Sendable (WalletRecord) async throws -> (WalletRecord, any ChainSource)
    /// The configured nodes, without credentials.
    public var nodes: @Sendable () throws -> NodeSettings.Shown
    /// Checks and stores a node URL (Bitcoin or `eth+http://`).
    public var setNode: @Sendable (_ url: String) throws -> NodeSettings.Entry
    /// The Ethereum node client.
    public var ethereumNode: @Sendable () throws -> any EthereumNode

    public init(
        store: Store, readOnly: Bool,
        connect: @escaping @Sendable (WalletRecord) async throws -> (WalletRecord, any ChainSource),
        nodes: @escaping @Sendable () throws -> NodeSettings.Shown,
        setNode: @escaping @Sendable (String) throws -> NodeSettings.Entry,
        ethereumNode: @escaping @Sendable () throws -> any EthereumNode
    ) {
        self.store = store
        self.readOnly = readOnly
        self.connect = connect
        self.nodes = nodes
        self.setNode = setNode
        self.ethereumNode = ethereumNode
    }
}

/// A request the page made that cannot be served: its HTTP status and a plain message for the page.
struct WebFailure: Error {
    let status: Int
    let message: String
    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// `airlock-watcher serve`: the routes of the local web app.
///
/// Each route reads its inputs, calls one Watcher flow and
/// returns the flow's report as JSON (the pages render it as text, never as markup); the decisions stay in the flows.
public final class WebApp: Sendable {
    let configuration: WebConfiguration
    let security: WebSecurity
    let jobs = SyncJobs()
    let requests = RequestFrames()
    let scans = ScanSessions()

    public init(configuration: WebConfiguration, security: WebSecurity) {
        self.configuration = configuration
        self.security = security
    }

    var store: Store { configuration.store }

    /// The routes that change something (refused under `--read-only`).
    static let changing: Set<String> = [
        "/api/sync", "/api/labels", "/api/freeze", "/api/receive", "/api/send", "/api/eth/send", "/api/broadcast",
        "/api/eth/broadcast", "/api/nodes", "/api/wallets/import", "/api/wallets/delete",
    ]

    /// Answers one request: the guard of `WebSecurity` first, then the route.
    public func respond(_ request: WebRequest) async -> WebResponse {
        var target = request.path
        if !request.query.isEmpty {
            target += "?" + request.query.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
        switch security.check(method: request.method, target: target, headers: request.headers) {
        case .refuse(let status, let reason):
            return WebResponse.text(reason + "\n", status: status)
        case .login(let location):
            return WebResponse(
                status: 303, contentType: "text/plain; charset=utf-8", body: Array("logged in\n".utf8),
                headers: [("Set-Cookie", security.setCookie), ("Location", location)])
        case .allow:
            break
        }
        if configuration.readOnly, Self.changing.contains(request.path) {
            return Self.failure(WebFailure(403, "this server is read-only (airlock-watcher serve --read-only)"))
        }
        do {
            return try await route(request)
        } catch let failure as WebFailure {
            return Self.failure(failure)
        } catch {
            return Self.failure(WebFailure(Self.status(for: error), "\(error)"))
        }
    }

    static func status(for error: any Error) -> Int {
        guard let kind = (error as? any FailureClassifying)?.failureKind else { return 400 }
        switch kind {
        case .network: return 502
        case .io: return 500
        default: return 400
        }
    }

    static func failure(_ failure: WebFailure) -> WebResponse {
        struct Message: Encodable { let error: String }
        var response = (try? json(Message(error: failure.message))) ?? .text(failure.message)
        response.status = failure.status
        return response
    }

    func route(_ request: WebRequest) async throws -> WebResponse {
        if request.method == "GET", let asset = WebAssets.asset(request.path) {
            return WebResponse(contentType: asset.type, body: Array(asset.body.utf8))
        }
        let isJSON = (request.headers["content-type"] ?? "").lowercased().hasPrefix("application/json")
        let body = isJSON && !request.body.isEmpty ? try Self.parse(request.body) : JSONValue.object([:])
        switch (request.method, request.path) {
        case ("GET", "/api/session"): return try session()
        case ("GET", "/api/overview"): return try await overview()
        case ("POST", "/api/sync"): return try await startSync(body)
        case ("GET", "/api/sync/events"): return await syncEvents(request.query["job"] ?? "")
        case ("GET", "/api/history"): return try history(request.query)
        case ("POST", "/api/labels"): return try setLabel(body)
        case ("GET", "/api/utxos"):
            return try Self.json(WalletQueries.utxos(store: store, wallet: wallet(request.query)))
        case ("POST", "/api/freeze"): return try freeze(body)
        case ("POST", "/api/receive"): return try receive(body)
        case ("POST", "/api/send"): return try await send(body)
        case ("POST", "/api/eth/send"): return try await ethSend(body)
        case ("GET", "/api/request/frame"): return try await frame(request.query)
        case ("GET", "/api/request/gif"): return try await gif(request.query)
        case ("GET", "/api/request/file"): return try await file(request.query)
        case ("POST", "/api/scan/new"): return try await Self.json(["scan": scans.start()])
        case ("POST", "/api/scan/frame"): return try await scanFrame(request)
        case ("POST", "/api/scan/text"): return try await scanText(request)
        case ("POST", "/api/answers/review"): return try await review(body)
        case ("POST", "/api/broadcast"): return try await broadcast(body)
        case ("POST", "/api/eth/broadcast"): return try await ethBroadcast(body)
        case ("GET", "/api/nodes"): return try Self.json(NodesView(shown: try? configuration.nodes()))
        case ("POST", "/api/nodes"): return try Self.json(configuration.setNode(try Self.string(body, "url")))
        case ("GET", "/api/wallets"): return try Self.json(WalletQueries.wallets(store: store))
        case ("POST", "/api/wallets/import"): return try await importWallet(body)
        case ("POST", "/api/wallets/delete"): return try deleteWallet(body)
        default: throw WebFailure(404, "no page \(request.path)")
        }
    }

    // MARK: JSON in and out

    static func json(_ value: some Encodable) throws -> WebResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return WebResponse(contentType: "application/json", body: Array(try encoder.encode(value)))
    }

    static func parse(_ body: [UInt8]) throws -> JSONValue {
        do { return try JSONValue(json: body) } catch { throw WebFailure(400, "the request is not valid JSON") }
    }

    static func string(_ body: JSONValue, _ key: String) throws -> String {
        guard let value = body[key]?.string, !value.isEmpty else { throw WebFailure(400, "missing \(key)") }
        return value
    }

    static func optionalString(_ body: JSONValue, _ key: String) -> String? {
        guard let value = body[key]?.string, !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value.trimmingCharacters(in: .whitespaces)
    }

    func wallet(_ query: [String: String]) throws -> WalletRecord { try store.wallet(named: query["wallet"]) }

    func wallet(_ body: JSONValue) throws -> WalletRecord {
        try store.wallet(named: Self.optionalString(body, "wallet"))
    }

    struct SessionJSON: Encodable {
        let csrf: String
        let readOnly: Bool
    }

    func session() throws -> WebResponse {
        try Self.json(SessionJSON(csrf: security.csrf, readOnly: configuration.readOnly))
    }

    // MARK: overview, history, coins

    struct OverviewJSON: Encodable {
        let bitcoin: [WalletQueries.BalanceReport]
        let networks: [String: String]
        let ethereum: [EthereumBalanceReport.JSON]
        let nodes: NodesView
    }

    struct NodesView: Encodable {
        let bitcoin: String?
        let ethereum: String?
        init(shown: NodeSettings.Shown?) {
            bitcoin = shown?.bitcoin?.url
            ethereum = shown?.ethereum?.url
        }
    }

    func overview() async throws -> WebResponse {
        let wallets = try store.wallets()
        let balances = try wallets.map { try WalletQueries.balance(store: store, wallet: $0) }
        let ethereum = try store.ethereumAccounts().map {
            try EthereumFlows.balance(wallet: $0.name, store: store).json
        }
        return try Self.json(
            OverviewJSON(
                bitcoin: balances,
                networks: Dictionary(wallets.map { ($0.name, $0.network.rawValue) }, uniquingKeysWith: { a, _ in a }),
                ethereum: ethereum, nodes: NodesView(shown: try? configuration.nodes())))
    }

    func history(_ query: [String: String]) throws -> WebResponse {
        if query["chain"] == "eth" {
            return try Self.json(EthereumFlows.history(wallet: query["wallet"], store: store).json)
        }
        guard let page = Int(query["page"] ?? "0"), page >= 0, page <= 1_000_000 else {
            throw WebFailure(400, "the page must be a whole number from 0 to 1000000")
        }
        let size = 100
        let result = try WalletHistory.page(store: store, wallet: try wallet(query), limit: size, offset: page * size)
        struct Page: Encodable {
            let entries: [WalletHistory.Entry]
            let total: Int
            let page: Int
            let pageSize: Int
        }
        return try Self.json(Page(entries: result.entries, total: result.total, page: page, pageSize: size))
    }

    func setLabel(_ body: JSONValue) throws -> WebResponse {
        let wallet = try wallet(body)
        let type = try Self.string(body, "type")
        guard ["tx", "addr", "output"].contains(type) else {
            throw WebFailure(400, "a label is for tx, addr or output")
        }
        let label = Label(type: type, ref: try Self.string(body, "ref"), label: body["label"]?.string ?? "")
        try store.upsertLabels([label], walletID: try wallet.requireID())
        return try Self.json(label)
    }

    func freeze(_ body: JSONValue) throws -> WebResponse {
        let texts = body["outpoints"]?.array?.compactMap(\.string) ?? []
        let report = try WalletQueries.setFrozen(
            store: store, wallet: try wallet(body), outpoints: try WalletQueries.outpoints(texts),
            frozen: body["frozen"]?.bool ?? true)
        return try Self.json(report)
    }

    // MARK: sync

    func startSync(_ body: JSONValue) async throws -> WebResponse {
        let name = Self.optionalString(body, "wallet")
        let chain = Self.optionalString(body, "chain") ?? "btc"
        let job = await jobs.start()
        let configuration = self.configuration
        let jobs = self.jobs
        Task {
            do {
                let line: String
                if chain == "eth" {
                    let report = try await EthereumFlows.sync(
                        wallet: name, store: configuration.store, node: configuration.ethereumNode)
                    line = report.line
                } else {
                    let wallet = try configuration.store.wallet(named: name)
                    let (checked, source) = try await configuration.connect(wallet)
                    let report = try await SyncFlow.run(store: configuration.store, wallet: checked, source: source) {
                        progress in
                        Task { await jobs.update(job, checked: progress.checked, expected: progress.expected) }
                    }
                    line = report.line
                }
                await jobs.finish(job, message: line, failed: false)
            } catch {
                await jobs.finish(job, message: "\(error)", failed: true)
            }
        }
        return try Self.json(["job": job])
    }

    func syncEvents(_ job: String) async -> WebResponse {
        let jobs = self.jobs
        let stream = AsyncStream<String> { continuation in
            let task = Task {
                var last = ""
                while !Task.isCancelled {
                    guard let state = await jobs.state(job) else {
                        continuation.yield(#"{"done":true,"failed":true,"message":"no such sync"}"#)
                        break
                    }
                    let text = state.json
                    if text != last { continuation.yield(text) }
                    last = text
                    if state.done { break }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return WebResponse(contentType: "text/event-stream", body: [], events: stream)
    }

    // MARK: receive

    struct ReceiveJSON: Encodable {
        let address: String
        let index: Int
        let uri: String
        let qrPng: String
    }

    func receive(_ body: JSONValue) throws -> WebResponse {
        if body["chain"]?.string == "eth" {
            let report = try EthereumFlows.receive(
                wallet: Self.optionalString(body, "wallet"), index: body["index"]?.int ?? 0,
                amount: Self.optionalString(body, "amount"), token: Self.optionalString(body, "token"), store: store)
            let json = report.json(qr: nil)
            return try Self.json(
                ReceiveJSON(address: json.address, index: json.index, uri: json.uri, qrPng: try Self.png(json.uri)))
        }
        let amount = try Self.optionalString(body, "amount").map { text in
            do { return try Amount(string: text) } catch {
                throw WebFailure(400, "not an amount: write 0.001btc or 1000sat")
            }
        }
        let report = try WalletReceive.address(
            store: store, wallet: try wallet(body), fresh: body["fresh"]?.bool ?? false, amount: amount,
            label: Self.optionalString(body, "label"))
        return try Self.json(
            ReceiveJSON(address: report.address, index: report.index, uri: report.uri, qrPng: try Self.png(report.uri)))
    }

    /// One QR code as a base64 PNG.
    static func png(_ text: String, moduleSize: Int = 6) throws -> String {
        Base64.encode(try QRCode(text: text).pngData(moduleSize: moduleSize))
    }
}
