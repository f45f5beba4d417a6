import Bitcoin
import BitcoinCrypto

/// An Electrum server (protocol 1.4, TCP or TLS) as a `ChainSource`: histories by script hash in batches, every
/// confirmed transaction checked against `blockchain.transaction.get_merkle` and the block header, every header checked
/// for proof of work and its link to its predecessor.
///
/// A server whose data does not check out is reported
/// (`ChainError.verificationFailed`), and nothing it said is returned.
public final class ElectrumClient: ChainSource, @unchecked Sendable {
    private let connection: JSONRPCConnection
    private let verifier: ProofVerifier
    private let url: String

    /// A client for `host:port`; nothing is sent until the first call.
    public init(
        host: String, port: Int, tls: NodeURL.TLSOptions?, network: Network, timeout: Int = 30,
        proxy: SOCKSProxy? = nil
    ) {
        connection = JSONRPCConnection(host: host, port: port, tls: tls, timeout: timeout)
        connection.proxy = proxy
        verifier = ProofVerifier(network: network)
        url = "\(tls == nil ? "electrum" : "electrums")://\(host):\(port)"
        connection.onConnect = { (connection: JSONRPCConnection) async throws(ChainError) -> Void in
            _ = try await connection.call("server.version", ["airlock-watcher", "1.4"])
        }
    }

    public var displayName: String { url }

    public func close() async { await connection.close() }

    /// The Electrum script hash: SHA256 of the script, reversed, in hex.
    public static func scriptHash(_ script: Script) -> String { SHA256.hash(script.bytes).reversed().hexString }

    public func tip() async throws(ChainError) -> BlockTip {
        let result = try await connection.call("blockchain.headers.subscribe")
        guard let height = result["height"]?.int, let hex = result["hex"]?.string else {
            throw .protocolViolation("blockchain.headers.subscribe without height and hex")
        }
        let header = try BlockHeader(hex: hex)
        try header.verifyProofOfWork(network: verifier.network, height: height)
        return BlockTip(height: height, hash: header.hashHex)
    }

    public func serverInfo() async throws(ChainError) -> ServerInfo {
        let version = try await connection.call("server.version", ["airlock-watcher", "1.4"])
        let features = try await connection.call("server.features")
        let software = version.array?.first?.string ?? "electrum server"
        return ServerInfo(software: software, genesisHash: features["genesis_hash"]?.string, tip: try await tip())
    }

    public func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        let result = try await connection.call("blockchain.estimatefee", [.number(Double(targetBlocks))])
        guard let btcPerKB = result.double else { throw .protocolViolation("estimatefee gave \(result)") }
        // -1 means "no estimate": fall back to the relay minimum of 1 sat/vB.
        guard btcPerKB > 0 else { return FeeRate(satsPerKVB: 1000) }
        return FeeRate(satsPerKVB: max(1000, UInt64((btcPerKB * 100_000_000).rounded())))
    }

    public func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        let raw = transaction.serialized().hexString
        return try await broadcastTxid(method: "blockchain.transaction.broadcast") {
            () async throws(ChainError) -> JSONValue in
            try await connection.call("blockchain.transaction.broadcast", [.string(raw)])
        }
    }

    public func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        let tip = try await tip()
        let scripts = request.scripts
        let historyResults = try await connection.batch(
            scripts.map { RPCRequest("blockchain.scripthash.get_history", [.string(Self.scriptHash($0))]) })
        var update = SyncUpdate(tip: tip)
        var needed: [Txid: Int?] = [:]
        for (script, result) in zip(scripts, historyResults) {
            let value = try result.get()
            guard let items = value.array else { throw .protocolViolation("get_history gave \(value)") }
            var entries: [HistoryEntry] = []
            for item in items {
                guard let hash = item["tx_hash"]?.string, let txid = try? Txid(hex: hash),
                    let height = item["height"]?.int
                else { throw .protocolViolation("malformed history entry \(item)") }
                guard height <= tip.height else {
                    throw .verificationFailed("history entry \(txid) at height \(height) above the tip \(tip.height)")
                }
                let entry = HistoryEntry(txid: txid, height: height > 0 ? height : nil)
                entries.append(entry)
                needed[txid] = entry.height
            }
            update.histories[script] = entries
        }
        // Raw transactions the wallet does not have, each checked against the txid asked for.
        let missing = needed.keys.filter { request.known[$0] == nil }.sorted { $0.hexString < $1.hexString }
        let rawResults = try await connection.batch(
            missing.map { RPCRequest("blockchain.transaction.get", [.string($0.hexString)]) })
        for (txid, result) in zip(missing, rawResults) {
            let value: JSONValue
            do {
                value = try result.get()
            } catch {
                throw .verificationFailed("the server lists transaction \(txid) but cannot serve it (\(error))")
            }
            guard let hex = value.string, let raw = try? [UInt8](hex: hex) else {
                throw .protocolViolation("transaction.get gave no hex for \(txid)")
            }
            update.transactions[txid] = try verifier.verifyTransaction(raw: raw, claimed: txid)
        }
        for (script, entries) in update.histories {
            try verifier.verifyHistory(script: script, entries: entries) { txid in
                update.transactions[txid] ?? request.knownTransactions[txid]
            }
        }
        // Confirmations: merkle proofs against headers, each header linked to its predecessor.
        let toProve = needed.compactMap { txid, height -> (Txid, Int)? in
            guard let height else { return nil }
            if let known = request.known[txid] ?? nil, known.height == height, known.verified { return nil }
            return (txid, height)
        }.sorted { $0.0.hexString < $1.0.hexString }
        let proofResults = try await connection.batch(
            toProve.map {
                RPCRequest("blockchain.transaction.get_merkle", [.string($0.0.hexString), .number(Double($0.1))])
            })
        var heights: Set<Int> = []
        for (txid, height) in toProve {
            heights.insert(height)
            if height > 0 { heights.insert(height - 1) }
        }
        let headers = try await fetchHeaders(Array(heights))
        for ((txid, height), result) in zip(toProve, proofResults) {
            let value: JSONValue
            do {
                value = try result.get()
            } catch {
                throw .verificationFailed("no merkle proof for \(txid) at height \(height) (\(error))")
            }
            guard let position = value["pos"]?.int, let branch = value["merkle"]?.array?.compactMap(\.string),
                let proofHeight = value["block_height"]?.int
            else { throw .protocolViolation("malformed get_merkle answer for \(txid)") }
            guard proofHeight == height else {
                throw .verificationFailed(
                    "merkle proof of \(txid) is for height \(proofHeight), history says \(height)")
            }
            guard let header = headers[height] else { throw .protocolViolation("no header at height \(height)") }
            let block = try verifier.verifyHeader(header, previous: headers[height - 1], height: height)
            try MerkleProof(position: position, displayHex: branch).verify(txid: txid, in: block)
            update.anchors[txid] = BlockAnchor(height: height, blockHash: block.hashHex, verified: true)
        }
        return update
    }

    /// Fetches the headers at `heights` in one batch.
    private func fetchHeaders(_ heights: [Int]) async throws(ChainError) -> [Int: BlockHeader] {
        let sorted = heights.sorted()
        let results = try await connection.batch(
            sorted.map { RPCRequest("blockchain.block.header", [.number(Double($0))]) })
        var headers: [Int: BlockHeader] = [:]
        for (height, result) in zip(sorted, results) {
            let value = try result.get()
            guard let hex = value.string else { throw .protocolViolation("block.header gave \(value)") }
            headers[height] = try BlockHeader(hex: hex)
        }
        return headers
    }
}
