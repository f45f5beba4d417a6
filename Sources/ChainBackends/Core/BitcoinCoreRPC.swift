import Bitcoin
import Foundation

/// Bitcoin Core's JSON-RPC over HTTP as a `ChainSource`.
///
/// Sync uses `scantxoutset` with `raw(SCRIPT)` descriptors (the UTXO set of the requested scripts, with heights), then
/// `getrawtransaction` and `getblockhash`, and looks through the mempool for payments to and spends from the
/// scripts. The user's own node is trusted, so its confirmations count as verified. `scantxoutset` sees only unspent
/// coins: a coin spent in a block is reported in `SyncUpdate.spentElsewhere`, and its spending transaction is not in
/// the history (docs/watcher.md).
public final class BitcoinCoreRPC: ChainSource, @unchecked Sendable {
    private let http: HTTPClient
    private let auth: NodeURL.RPCAuth
    private let wallet: String?
    private let url: String
    private var nextID = 0

    public init(host: String, port: Int, auth: NodeURL.RPCAuth, wallet: String?, timeout: Int = 120) {
        http = HTTPClient(host: host, port: port, tls: nil, timeout: timeout)
        self.auth = auth
        self.wallet = wallet
        url = "bitcoind://\(host):\(port)"
    }

    public var displayName: String { url }

    public func close() async {}

    private func authorization() throws(ChainError) -> String {
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
        return "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// One JSON-RPC call; throws the node's error.
    public func call(_ method: String, _ params: [JSONValue] = []) async throws(ChainError) -> JSONValue {
        nextID += 1
        let body: JSONValue = .object([
            "jsonrpc": "1.0", "id": .number(Double(nextID)), "method": .string(method), "params": .array(params),
        ])
        let path = wallet.map { "/wallet/\($0)" } ?? "/"
        let response = try await http.request(
            method: "POST", path: path,
            headers: ["Authorization": try authorization(), "Content-Type": "application/json"],
            body: body.serialized())
        if response.status == 401 || response.status == 403 {
            throw .connectionFailed(host: url, port: 0, reason: "the node refused the RPC credentials (HTTP \(response.status))")
        }
        guard !response.body.isEmpty else {
            throw .http(status: response.status, body: "empty body")
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
        guard let height = info["blocks"]?.int, let hash = info["bestblockhash"]?.string else {
            throw .protocolViolation("getblockchaininfo without blocks and bestblockhash")
        }
        return BlockTip(height: height, hash: hash)
    }

    public func serverInfo() async throws(ChainError) -> ServerInfo {
        let tip = try await tip()
        let genesis = try await call("getblockhash", [0]).string
        let chain = try await call("getblockchaininfo")["chain"]?.string ?? "?"
        return ServerInfo(software: "Bitcoin Core RPC (chain \(chain))", genesisHash: genesis, tip: tip)
    }

    public func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        let result = try await call("estimatesmartfee", [.number(Double(targetBlocks))])
        guard let btcPerKVB = result["feerate"]?.double, btcPerKVB > 0 else { return FeeRate(satsPerKVB: 1000) }
        return FeeRate(satsPerKVB: max(1000, UInt64((btcPerKVB * 100_000_000).rounded())))
    }

    public func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        do {
            let result = try await call("sendrawtransaction", [.string(transaction.serialized().hexString)])
            guard let text = result.string, let txid = try? Txid(hex: text) else {
                throw ChainError.protocolViolation("sendrawtransaction returned \(result)")
            }
            return txid
        } catch let error as ChainError {
            if case .server(_, let message) = error { throw .rejected(message) }
            throw error
        } catch {
            throw .protocolViolation("\(error)")
        }
    }

    public func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        let tip = try await tip()
        var update = SyncUpdate(tip: tip)
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
                let vout = coin["vout"]?.int, let scriptHex = coin["scriptPubKey"]?.string,
                let script = try? Script(hex: scriptHex), let height = coin["height"]?.int
            else { throw .protocolViolation("malformed scantxoutset entry \(coin)") }
            guard wanted.contains(script) else { continue }
            unspentNow.insert(OutPoint(txid: txid, vout: UInt32(vout)))
            let entry = HistoryEntry(txid: txid, height: height)
            if update.histories[script]?.contains(entry) == false { update.histories[script, default: []].append(entry) }
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
        for (outpoint, script) in request.knownOutpoints where wanted.contains(script) && !unspentNow.contains(outpoint) {
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
            for script in scripts { update.histories[script, default: []].append(HistoryEntry(txid: txid, height: nil)) }
        }
        _ = unspentNow
    }

    private func fetchTransaction(_ txid: Txid) async throws(ChainError) -> Transaction {
        let value = try await call("getrawtransaction", [.string(txid.hexString)])
        guard let hex = value.string, let raw = try? [UInt8](hex: hex) else {
            throw .protocolViolation("getrawtransaction gave no hex for \(txid)")
        }
        return try ProofVerifier(network: .main).verifyTransaction(raw: raw, claimed: txid)
    }
}
