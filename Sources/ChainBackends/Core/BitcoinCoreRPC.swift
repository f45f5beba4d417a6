import Bitcoin
import ChainCore
import Codecs
import Foundation

/// Bitcoin Core's JSON-RPC over HTTP as a `ChainSource`.
///
/// Sync has two modes (docs/watcher.md):
/// - wallet: a watch-only descriptor wallet on the node (`wallet`, loaded or created blank with private keys
///   disabled) into which the request's descriptors are imported (`importdescriptors`, rescanning from genesis when
///   a descriptor or a larger range is imported); the history is the wallet's transaction list (`listsinceblock`
///   with change, then `gettransaction` for the raw transactions), so spends are in it like any other transaction.
/// - scantxoutset, when the node has no wallet support (`-32601`, or HTTP 404 on `/wallet/`) or no wallet name is
///   given: `scantxoutset` with `raw(SCRIPT)` descriptors (the UTXO set of the requested scripts, with heights), then
///   `getrawtransaction` and `getblockhash`, and a look through the mempool for payments to and spends from the
///   scripts. It sees only unspent coins: a coin spent in a block is reported in `SyncUpdate.spentElsewhere`, and its
///   spending transaction is not in the history.
///
/// The user's own node is trusted, so its confirmations count as verified in both modes.
public final class BitcoinCoreRPC: ChainSource, @unchecked Sendable {
    let http: HTTPClient
    private let auth: NodeURL.RPCAuth
    let wallet: String?
    private let url: String
    private var nextID = 0
    /// nil until the first sync or `serverInfo` finds out; then whether the node-side wallet is in use.
    private var walletReady: Bool?
    private var fallbackReason = ""
    /// The named wallet is neither loaded nor on the node (`serverInfo` does not create it; sync does).
    private var walletMissing = false
    /// Range end of each descriptor the node wallet watches (normalised text without checksum -> last index).
    private var watched: [String: Int] = [:]
    private var rawCache: [Txid: Transaction] = [:]
    private let checker: ReplyChecker
    /// The wallet's birthday: descriptors are imported with its timestamp, so the node rescans from there (nil: from
    /// genesis).
    public var rescanStart: RescanStart?
    /// Called with the node's progress while it rescans for an import (`getwalletinfo.scanning`).
    public var onRescan: (@Sendable (RescanStatus) -> Void)?

    /// A client of the node at `host`:`port`.
    ///
    /// - Parameters:
    ///   - host: the node's RPC host.
    ///   - port: the node's RPC port.
    ///   - auth: user and password, or the cookie file.
    ///   - wallet: the node-side wallet to sync through (created when missing); nil syncs with `scantxoutset` only.
    ///   - timeout: seconds to wait for each answer.
    ///   - proxy: a SOCKS5 proxy every connection goes through (nil: direct).
    public init(
        host: String, port: Int, auth: NodeURL.RPCAuth, wallet: String?, timeout: Int = 120,
        proxy: SOCKSProxy? = nil
    ) {
        http = HTTPClient(host: host, port: port, tls: nil, timeout: timeout, proxy: proxy)
        self.auth = auth
        self.wallet = wallet
        url = "bitcoind://\(host):\(port)"
        checker = ReplyChecker(server: url)
    }

    /// The sync mode in words, once known: `wallet NAME` or `scantxoutset (why)`.
    public var modeDescription: String? {
        guard let walletReady else { return nil }
        if walletMissing { return "wallet \(wallet ?? "") (not on the node yet: the first sync creates it)" }
        return walletReady ? "wallet \(wallet ?? "")" : "scantxoutset (\(fallbackReason))"
    }

    public var displayName: String { url }

    public func close() async {}

    func authorization() throws(ChainError) -> String {
        let credentials: String
        switch auth {
        case .password(let user, let password):
            credentials = "\(user):\(password)"
        case .cookie(let path):
            guard let data = FileManager.default.contents(atPath: path),
                let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
                text.contains(":")
            else { throw .connectionFailed(host: url, port: 0, reason: "cannot read the cookie file \(path)") }
            credentials = text
        }
        return "Basic " + Base64.encode(Array(credentials.utf8))
    }

    /// One JSON-RPC call on `/`, or on `/wallet/<wallet>` with `onWallet`; throws the node's error.
    public func call(_ method: String, _ params: [JSONValue] = [], onWallet: Bool = false) async throws(ChainError)
        -> JSONValue
    {
        nextID += 1
        let body: JSONValue = .object([
            "jsonrpc": "1.0", "id": .number(Double(nextID)), "method": .string(method), "params": .array(params),
        ])
        var path = "/"
        if onWallet, let wallet {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            path = "/wallet/" + (wallet.addingPercentEncoding(withAllowedCharacters: allowed) ?? wallet)
        }
        let response = try await http.request(
            method: "POST", path: path,
            headers: ["Authorization": try authorization(), "Content-Type": "application/json"],
            body: body.serialized())
        if response.status == 401 || response.status == 403 {
            throw .connectionFailed(
                host: url, port: 0, reason: "the node refused the RPC credentials (HTTP \(response.status))")
        }
        guard !response.body.isEmpty else {
            throw .http(status: response.status, body: "empty body on \(path)")
        }
        let value = try JSONValue.parse(response.body)
        if let error = value["error"], !error.isNull {
            throw .server(code: error["code"]?.int ?? 0, message: error["message"]?.string ?? "\(error)")
        }
        guard response.status == 200, let result = value["result"] else {
            throw .http(status: response.status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
        return result
    }

    public func tip() async throws(ChainError) -> BlockTip {
        let info = try await call("getblockchaininfo")
        let height = try checker.height(info["blocks"], "getblockchaininfo blocks")
        guard let hash = info["bestblockhash"]?.string else {
            throw .protocolViolation("getblockchaininfo without bestblockhash")
        }
        return BlockTip(height: height, hash: hash)
    }

    /// `getblockchaininfo`'s `chain`, and the genesis hash to tell the default signet from a custom one.
    public func nodeChain() async throws(ChainError) -> NodeChain {
        let info = try await call("getblockchaininfo")
        guard let chain = info["chain"]?.string else { throw checker.invalid("getblockchaininfo chain", info["chain"]) }
        let genesis = try await call("getblockhash", [0]).string
        return NodeChain(coreChain: chain, genesisHash: genesis)
    }

    public func serverInfo() async throws(ChainError) -> ServerInfo {
        let tip = try await tip()
        let genesis = try await call("getblockhash", [0]).string
        let chain = try await call("getblockchaininfo")["chain"]?.string ?? "?"
        _ = try await prepareWallet(create: false)
        return ServerInfo(
            software: "Bitcoin Core RPC (chain \(chain))", genesisHash: genesis, tip: tip,
            mode: modeDescription)
    }

    /// Finds out whether the node-side wallet can be used, loading it (and, with `create`, creating it blank and
    /// watch-only) when it is not loaded.
    ///
    /// The answer is kept for the life of this source.
    private func prepareWallet(create: Bool) async throws(ChainError) -> Bool {
        if walletReady == true { return true }
        if walletReady == false, !(create && walletMissing) { return false }
        guard let wallet else {
            fallbackReason = "no wallet name"
            walletReady = false
            return false
        }
        let loaded: [String]
        do throws(ChainError) {
            loaded = try await call("listwallets").array?.compactMap(\.string) ?? []
        } catch {
            if Self.meansNoWalletSupport(error) {
                fallbackReason = "the node has no wallet support"
                walletReady = false
                return false
            }
            throw error
        }
        if !loaded.contains(wallet) {
            do throws(ChainError) {
                _ = try await call("loadwallet", [.string(wallet)])
            } catch {
                switch error {
                case .server(-18, _):
                    guard create else {
                        walletMissing = true
                        walletReady = false
                        return false
                    }
                    // createwallet wallet_name disable_private_keys blank passphrase avoid_reuse descriptors
                    _ = try await call("createwallet", [.string(wallet), true, true, "", false, true])
                case .server(-35, _):
                    break  // loaded meanwhile
                default:
                    throw error
                }
            }
        }
        walletReady = true
        walletMissing = false
        fallbackReason = ""
        try await refreshWatched()
        return true
    }

    private static func meansNoWalletSupport(_ error: ChainError) -> Bool {
        switch error {
        case .server(let code, _): code == -32601
        case .http(let status, _): status == 404
        default: false
        }
    }

    /// Normalised descriptor text for comparing ours with the node's: no checksum, `h` for hardened steps.
    private static func normalised(_ descriptor: String) -> String {
        let body = descriptor.split(separator: "#", maxSplits: 1).first.map(String.init) ?? descriptor
        return body.replacingOccurrences(of: "'", with: "h")
    }

    private func refreshWatched() async throws(ChainError) {
        let listed = try await call("listdescriptors", onWallet: true)
        guard let descriptors = listed["descriptors"]?.array else {
            throw .protocolViolation("listdescriptors without descriptors")
        }
        watched = [:]
        for entry in descriptors {
            guard let text = entry["desc"]?.string else { continue }
            watched[Self.normalised(text)] = entry["range"]?.array?.last?.int ?? 0
        }
    }

    /// Imports the descriptors the node wallet does not watch far enough, in one `importdescriptors` call (one rescan,
    /// from the birthday's timestamp or genesis), after waiting for a rescan an interrupted sync left running.
    private func importMissing(_ descriptors: [WatchedDescriptor]) async throws(ChainError) {
        if try await waitForRescan() { try await refreshWatched() }
        var requests: [JSONValue] = []
        for watch in descriptors {
            let key = Self.normalised(watch.descriptor)
            let have = watched[key]
            if let have, have >= (watch.rangeEnd ?? 0) { continue }
            var request: [String: JSONValue] = [
                "desc": .string(watch.descriptor), "timestamp": 0, "internal": .bool(watch.isChange),
                "active": false,
            ]
            if let end = watch.rangeEnd { request["range"] = .array([0, .number(Double(max(end, have ?? 0)))]) }
            requests.append(.object(request))
        }
        guard !requests.isEmpty else { return }
        let timestamp = try await importTimestamp()
        requests = requests.map { request in
            guard var fields = request.object else { return request }
            fields["timestamp"] = timestamp
            return .object(fields)
        }
        let results = try await importDescriptors(requests)
        for (request, result) in zip(requests, results.array ?? []) where result["success"]?.bool != true {
            let error = result["error"]
            throw .server(
                code: error?["code"]?.int ?? 0,
                message: "importdescriptors \(request["desc"]?.string ?? ""): "
                    + (error?["message"]?.string ?? "\(result)"))
        }
        try await refreshWatched()
    }

    public func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        let result = try await call("estimatesmartfee", [.number(Double(targetBlocks))])
        // Without enough data the node answers `errors` and no `feerate`: the user must give the rate.
        guard
            let rate = try result["feerate"].flatMap({ (value: JSONValue) throws(ChainError) -> FeeRate? in
                try checker.feeRate(value, "estimatesmartfee feerate", satsPerKVBPerUnit: 100_000_000)
            })
        else { throw .noFeeEstimate(server: url, targetBlocks: targetBlocks) }
        return rate
    }

    public func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        try await broadcastTxid(method: "sendrawtransaction") { () async throws(ChainError) -> JSONValue in
            try await call("sendrawtransaction", [.string(transaction.serialized().hexString)])
        }
    }

    public func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        if !request.descriptors.isEmpty, try await prepareWallet(create: true) {
            return try await walletSync(request)
        }
        let tip = try await tip()
        var update = SyncUpdate(
            tip: tip, mode: "scantxoutset (\(fallbackReason.isEmpty ? "no descriptors" : fallbackReason))")
        for script in request.scripts { update.histories[script] = [] }
        guard !request.scripts.isEmpty else { return update }
        let wanted = Set(request.scripts)
        let descriptors = request.scripts.map { JSONValue.string("raw(\($0.hexString))") }
        let scan = try await call("scantxoutset", ["start", .array(descriptors)])
        guard let unspents = scan["unspents"]?.array else { throw .protocolViolation("scantxoutset without unspents") }
        var unspentNow: Set<OutPoint> = []
        var blockHashes: [Int: String] = [:]
        for coin in unspents {
            guard let txidText = coin["txid"]?.string, let txid = try? Txid(hex: txidText),
                let scriptHex = coin["scriptPubKey"]?.string, let script = try? Script(hex: scriptHex)
            else { throw .protocolViolation("malformed scantxoutset entry \(coin)") }
            let vout = try checker.vout(coin["vout"], "scantxoutset vout of \(txid)")
            let height = try checker.height(coin["height"], "scantxoutset height of \(txid)")
            guard wanted.contains(script) else { continue }
            unspentNow.insert(OutPoint(txid: txid, vout: vout))
            let entry = HistoryEntry(txid: txid, height: height)
            if update.histories[script]?.contains(entry) == false {
                update.histories[script, default: []].append(entry)
            }
            if update.transactions[txid] == nil, request.known[txid] == nil {
                update.transactions[txid] = try await fetchTransaction(txid)
            }
            if blockHashes[height] == nil {
                guard let hash = try await call("getblockhash", [.number(Double(height))]).string else {
                    throw .protocolViolation("getblockhash gave no hash")
                }
                blockHashes[height] = hash
            }
            update.anchors[txid] = BlockAnchor(height: height, blockHash: blockHashes[height] ?? "", verified: true)
        }
        // Known confirmed coins that left the UTXO set were spent in a block this backend cannot point at.
        for (outpoint, script) in request.knownOutpoints where wanted.contains(script) && !unspentNow.contains(outpoint)
        {
            if let anchor = request.known[outpoint.txid] ?? nil, anchor.height <= scan["height"]?.int ?? tip.height {
                update.spentElsewhere.insert(outpoint)
            }
        }
        try await scanMempool(request: request, wanted: wanted, unspentNow: unspentNow, update: &update)
        return update
    }

    /// Adds mempool transactions that pay a requested script or spend one of its coins.
    private func scanMempool(
        request: SyncRequest, wanted: Set<Script>, unspentNow: Set<OutPoint>, update: inout SyncUpdate
    ) async throws(ChainError) {
        guard let txids = try await call("getrawmempool").array?.compactMap(\.string) else {
            throw .protocolViolation("getrawmempool gave no list")
        }
        var ours: [OutPoint: Script] = request.knownOutpoints
        for (txid, tx) in update.transactions {
            for (vout, output) in tx.outputs.enumerated() where wanted.contains(output.scriptPubKey) {
                ours[OutPoint(txid: txid, vout: UInt32(vout))] = output.scriptPubKey
            }
        }
        var mempool: [(Txid, Transaction)] = []
        for text in txids.prefix(20_000) {
            guard let txid = try? Txid(hex: text) else { continue }
            let tx: Transaction
            if let known = request.knownTransactions[txid] { tx = known } else { tx = try await fetchTransaction(txid) }
            mempool.append((txid, tx))
            for (vout, output) in tx.outputs.enumerated() where wanted.contains(output.scriptPubKey) {
                ours[OutPoint(txid: txid, vout: UInt32(vout))] = output.scriptPubKey
            }
        }
        for (txid, tx) in mempool {
            var scripts = Set(tx.outputs.map(\.scriptPubKey).filter { wanted.contains($0) })
            for input in tx.inputs { if let script = ours[input.previousOutput] { scripts.insert(script) } }
            guard !scripts.isEmpty else { continue }
            if request.known[txid] == nil { update.transactions[txid] = tx }
            for script in scripts {
                update.histories[script, default: []].append(HistoryEntry(txid: txid, height: nil))
            }
        }
        _ = unspentNow
    }

    /// Sync through the node wallet: import what is not watched yet, then read the wallet's transactions.
    private func walletSync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        try await importMissing(request.descriptors)
        let tip = try await tip()
        var update = SyncUpdate(tip: tip, mode: modeDescription)
        for script in request.scripts { update.histories[script] = [] }
        guard !request.scripts.isEmpty else { return update }
        let wanted = Set(request.scripts)
        // listsinceblock "" 1 include_watchonly include_removed include_change: every wallet transaction, one entry
        // per output (with change, so self-transfers are listed too).
        let since = try await call("listsinceblock", ["", 1, true, true, true], onWallet: true)
        guard let entries = since["transactions"]?.array else {
            throw .protocolViolation("listsinceblock without transactions")
        }
        var states: [Txid: (confirmations: Int, height: Int?, hash: String?)] = [:]
        var order: [Txid] = []
        for entry in entries {
            guard let text = entry["txid"]?.string, let txid = try? Txid(hex: text) else {
                throw .protocolViolation("malformed listsinceblock entry \(entry)")
            }
            // Negative confirmations: a conflicted transaction, that many blocks deep on the other side.
            let confirmations = try checker.int(
                entry["confirmations"], "listsinceblock confirmations of \(txid)",
                in: -ReplyChecker.maxHeight...ReplyChecker.maxHeight)
            let height = try entry["blockheight"].map { (value: JSONValue) throws(ChainError) -> Int in
                try checker.height(value, "listsinceblock blockheight of \(txid)")
            }
            if states[txid] == nil { order.append(txid) }
            states[txid] = (confirmations, height, entry["blockhash"]?.string)
        }
        // Unconfirmed wallet transactions that left the mempool (replaced, or conflicted) are not history.
        var mempool: Set<Txid> = []
        if states.values.contains(where: { $0.confirmations == 0 }) {
            guard let txids = try await call("getrawmempool").array?.compactMap(\.string) else {
                throw .protocolViolation("getrawmempool gave no list")
            }
            mempool = Set(txids.compactMap { try? Txid(hex: $0) })
        }
        var live: [(Txid, Transaction, BlockAnchor?)] = []
        for txid in order {
            guard let state = states[txid] else { continue }
            if state.confirmations < 0 || (state.confirmations == 0 && !mempool.contains(txid)) { continue }
            var anchor: BlockAnchor?
            if state.confirmations > 0 {
                guard let height = state.height, let hash = state.hash else {
                    throw .protocolViolation("listsinceblock: confirmed \(txid) without blockheight/blockhash")
                }
                anchor = BlockAnchor(height: height, blockHash: hash, verified: true)
            }
            let tx: Transaction
            if let known = request.knownTransactions[txid] ?? rawCache[txid] {
                tx = known
            } else {
                tx = try await walletTransaction(txid)
            }
            live.append((txid, tx, anchor))
        }
        var scriptOf: [OutPoint: Script] = [:]
        for (txid, tx) in request.knownTransactions {
            for (vout, output) in tx.outputs.enumerated() {
                scriptOf[OutPoint(txid: txid, vout: UInt32(vout))] = output.scriptPubKey
            }
        }
        for (txid, tx, _) in live {
            for (vout, output) in tx.outputs.enumerated() {
                scriptOf[OutPoint(txid: txid, vout: UInt32(vout))] = output.scriptPubKey
            }
        }
        for (txid, tx, anchor) in live {
            var scripts = Set(tx.outputs.map(\.scriptPubKey).filter { wanted.contains($0) })
            for input in tx.inputs {
                if let script = scriptOf[input.previousOutput], wanted.contains(script) { scripts.insert(script) }
            }
            guard !scripts.isEmpty else { continue }
            for script in scripts {
                update.histories[script, default: []].append(HistoryEntry(txid: txid, height: anchor?.height))
            }
            if request.known[txid] == nil { update.transactions[txid] = tx }
            if let anchor { update.anchors[txid] = anchor }
        }
        return update
    }

    /// A wallet transaction's raw form from `gettransaction`, checked against its txid.
    private func walletTransaction(_ txid: Txid) async throws(ChainError) -> Transaction {
        let value = try await call("gettransaction", [.string(txid.hexString), true], onWallet: true)
        guard let hex = value["hex"]?.string, let raw = try? [UInt8](hex: hex) else {
            throw .protocolViolation("gettransaction gave no hex for \(txid)")
        }
        let tx = try ProofVerifier(network: .main).verifyTransaction(raw: raw, claimed: txid)
        rawCache[txid] = tx
        return tx
    }

    private func fetchTransaction(_ txid: Txid) async throws(ChainError) -> Transaction {
        let value = try await call("getrawtransaction", [.string(txid.hexString)])
        guard let hex = value.string, let raw = try? [UInt8](hex: hex) else {
            throw .protocolViolation("getrawtransaction gave no hex for \(txid)")
        }
        return try ProofVerifier(network: .main).verifyTransaction(raw: raw, claimed: txid)
    }
}
