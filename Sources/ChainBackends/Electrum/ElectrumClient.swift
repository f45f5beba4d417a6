import Bitcoin
import BitcoinCrypto
import ChainCore
import Codecs
import Synchronization

/// An Electrum server (protocol 1.4, TCP or TLS) as a `ChainSource`: histories by script hash in batches, every
/// confirmed transaction checked against `blockchain.transaction.get_merkle` and the block header, every header checked
/// for proof of work and its link to its predecessor.
///
/// Several syncs may be in flight on its one connection (`pipelineDepth`).
///
/// A server whose data does not check out is reported
/// (`ChainError.verificationFailed`), and nothing it said is returned.
public final class ElectrumClient: ChainSource, @unchecked Sendable {
    private let connection: JSONRPCConnection
    private let verifier: ProofVerifier
    private let url: String
    private let checker: ReplyChecker
    /// Headers already checked (proof of work, link to the predecessor), by height, for the tip they were read at;
    /// emptied when the tip changes.
    private let headerCache = Mutex<(tip: String, headers: [Int: BlockHeader])>(("", [:]))

    /// A client for `host:port`; nothing is sent until the first call.
    public convenience init(
        host: String, port: Int, tls: NodeURL.TLSOptions?, network: Network, timeout: Int = 30,
        proxy: SOCKSProxy? = nil
    ) {
        self.init(
            connection: JSONRPCConnection(
                host: host, port: port, tls: tls, timeout: timeout, proxy: proxy,
                onConnect: { (connection: JSONRPCConnection) async throws(ChainError) -> Void in
                    _ = try await connection.call("server.version", ["airlock-watcher", "1.4"])
                }),
            network: network, url: "\(tls == nil ? "electrum" : "electrums")://\(host):\(port)")
    }

    /// A client on an existing connection (a transcript test's in-memory channel).
    init(connection: JSONRPCConnection, network: Network, url: String) {
        self.connection = connection
        verifier = ProofVerifier(network: network)
        self.url = url
        checker = ReplyChecker(server: url)
    }

    public var displayName: String { url }

    /// Batches a wallet sync keeps in flight: the server works on the next ones while the client checks and stores
    /// the last.
    public var pipelineDepth: Int { 3 }

    public func close() async { await connection.close() }

    /// The Electrum script hash: SHA256 of the script, reversed, in hex.
    public static func scriptHash(_ script: Script) -> String { SHA256.hash(script.bytes).reversed().hexString }

    public func tip() async throws(ChainError) -> BlockTip {
        try tip(from: try await connection.call("blockchain.headers.subscribe"))
    }

    /// The tip of a `blockchain.headers.subscribe` answer, its proof of work checked.
    private func tip(from result: JSONValue) throws(ChainError) -> BlockTip {
        let height = try checker.height(result["height"], "blockchain.headers.subscribe height")
        guard let hex = result["hex"]?.string else {
            throw .protocolViolation("blockchain.headers.subscribe without hex")
        }
        let header = try BlockHeader(hex: hex)
        try header.verifyProofOfWork(network: verifier.network, height: height)
        return BlockTip(height: height, hash: header.hashHex)
    }

    /// The chain of the genesis header (`blockchain.block.header 0`): its hash names the network.
    ///
    /// Not checked for proof of work, which depends on the network it is to tell.
    public func nodeChain() async throws(ChainError) -> NodeChain {
        let result = try await connection.call("blockchain.block.header", [.number(0)])
        guard let hex = result.string ?? result["header"]?.string else {
            throw checker.invalid("blockchain.block.header 0", result)
        }
        return NodeChain(genesisHash: try BlockHeader(hex: hex).hashHex)
    }

    public func serverInfo() async throws(ChainError) -> ServerInfo {
        let version = try await connection.call("server.version", ["airlock-watcher", "1.4"])
        let features = try await connection.call("server.features")
        let software = version.array?.first?.string ?? "electrum server"
        return ServerInfo(software: software, genesisHash: features["genesis_hash"]?.string, tip: try await tip())
    }

    public func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        let result = try await connection.call("blockchain.estimatefee", [.number(Double(targetBlocks))])
        // BTC per kvB; -1 means "no estimate", which the user must then give (--fee-rate).
        guard let rate = try checker.feeRate(result, "blockchain.estimatefee", satsPerKVBPerUnit: 100_000_000) else {
            throw .noFeeEstimate(server: url, targetBlocks: targetBlocks)
        }
        return rate
    }

    public func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        let raw = transaction.serialized().hexString
        return try await broadcastTxid(method: "blockchain.transaction.broadcast") {
            () async throws(ChainError) -> JSONValue in
            try await connection.call("blockchain.transaction.broadcast", [.string(raw)])
        }
    }

    /// Histories, then in one pipelined batch the transactions, merkle proofs and header ranges they need.
    ///
    /// Two round trips per call. Headers verified once are kept while the tip stays the same, so a sync of many batches fetches
    /// and checks each header once. Safe to call from several tasks at once (a pipelined sync).
    public func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        let scripts = request.scripts
        // The tip and the histories in one batch; the server answers a connection's requests in order, so the tip
        // is at least the one the histories were read at (checked below all the same).
        let first = try await connection.batch(
            [RPCRequest("blockchain.headers.subscribe")]
                + scripts.map { RPCRequest("blockchain.scripthash.get_history", [.string(Self.scriptHash($0))]) })
        guard first.count == scripts.count + 1 else { throw .protocolViolation("a batch answer is missing") }
        var tip = try tip(from: try first[0].get().value)
        var update = SyncUpdate(tip: tip)
        var needed: [Txid: Int?] = [:]
        var highest = 0
        for (script, result) in zip(scripts, first.dropFirst()) {
            // Each answer read in place (`JSONElement`): the txid decoded from the hex where it is.
            let value = try result.get()
            guard let items = value.array else { throw .protocolViolation("get_history gave \(value.value)") }
            var entries: [HistoryEntry] = []
            entries.reserveCapacity(items.count)
            for item in items {
                guard case .success(let hash) = item["tx_hash"]?.hexBytes(reversed: true), hash.count == 32 else {
                    throw .protocolViolation("malformed history entry \(item.value)")
                }
                let txid = Txid(unchecked: hash)  // 32 bytes, decoded in place (no second copy)
                // -1 and 0 mean unconfirmed (with unconfirmed parents, or not).
                let height = try Self.int(
                    item["height"], "get_history height", in: -1...ReplyChecker.maxHeight, checker: checker)
                highest = max(highest, height)
                let entry = HistoryEntry(txid: txid, height: height > 0 ? height : nil)
                entries.append(entry)
                needed[txid] = entry.height
            }
            update.histories[script] = entries
        }
        if highest > tip.height {
            // A block came in between: the tip once more, and every entry must be at or below it.
            tip = try await self.tip()
            update.tip = tip
            guard highest <= tip.height else {
                let txid = needed.first { ($0.value ?? 0) == highest }?.key.hexString ?? "?"
                throw .verificationFailed("history entry \(txid) at height \(highest) above the tip \(tip.height)")
            }
        }
        // What the wallet does not have yet: raw transactions (each checked against the txid asked for), merkle
        // proofs of confirmations not verified at that height, and the headers those need (the proof's block and
        // its predecessor), in contiguous ranges.
        // In the order of the txids' hex (each txid's hex made once; compared as bytes, which sort alike: comparing
        // the strings was 1% of a sync's instructions).
        let hexes = needed.keys.map { ($0, $0.hexString) }
        let missingHex = hexes.filter { request.known[$0.0] == nil }.sorted { Self.displayOrder($0.0, $1.0) }
        let missing = missingHex.map(\.0)
        let toProveHex = hexes.compactMap { txid, hex -> (Txid, Int, String)? in
            guard let height = needed[txid] ?? nil else { return nil }
            if let known = request.known[txid] ?? nil, known.height == height, known.verified { return nil }
            return (txid, height, hex)
        }.sorted { Self.displayOrder($0.0, $1.0) }
        let toProve = toProveHex.map { ($0.0, $0.1) }
        var heights: Set<Int> = []
        for (_, height) in toProve {
            heights.insert(height)
            if height > 0 { heights.insert(height - 1) }
        }
        var headers = headerCache.withLock { cache in
            if cache.tip != tip.hash { cache = (tip.hash, [:]) }
            return cache.headers.filter { heights.contains($0.key) }
        }
        let ranges = Self.ranges(heights.subtracting(headers.keys))
        let requests =
            missingHex.map { RPCRequest("blockchain.transaction.get", [.string($0.1)]) }
            + toProveHex.map {
                RPCRequest("blockchain.transaction.get_merkle", [.string($0.2), .number(Double($0.1))])
            }
            + ranges.map {
                RPCRequest("blockchain.block.headers", [.number(Double($0.start)), .number(Double($0.count))])
            }
        let results = try await connection.batch(requests)
        guard results.count == requests.count else { throw .protocolViolation("a batch answer is missing") }
        let rawResults = results[0..<missing.count]
        let proofResults = results[missing.count..<(missing.count + toProve.count)]
        let headerResults = results[(missing.count + toProve.count)...]
        for (txid, result) in zip(missing, rawResults) {
            let value: JSONElement
            do {
                value = try result.get()
            } catch {
                throw .verificationFailed("the server lists transaction \(txid) but cannot serve it (\(error))")
            }
            guard case .success(let raw) = value.hexBytes(reversed: false) else {
                throw .protocolViolation("transaction.get gave no hex for \(txid)")
            }
            update.transactions[txid] = try verifier.verifyTransaction(raw: raw, claimed: txid)
            update.rawTransactions[txid] = raw
        }
        for (script, entries) in update.histories {
            try verifier.verifyHistory(script: script, entries: entries) { txid in
                update.transactions[txid] ?? request.knownTransactions[txid]
            }
        }
        for (range, result) in zip(ranges, headerResults) {
            for (offset, header) in try headerRange(result, range).enumerated() {
                headers[range.start + offset] = header
            }
        }
        // Confirmations: merkle proofs against headers, each header checked for proof of work and linked to its
        // predecessor (once per height).
        // Each checked block with its hash's hex, computed once per block and shared by its transactions' anchors
        // (one string per block, not one per transaction: a 100,000-transaction sync keeps every anchor).
        var blocks: [Int: (header: BlockHeader, hashHex: String)] = [:]
        // The proofs of one block share their proven upper nodes (`MerkleNodes`).
        var proven: [Int: MerkleNodes] = [:]
        for ((txid, height), result) in zip(toProve, proofResults) {
            let value: JSONElement
            do {
                value = try result.get()
            } catch {
                throw .verificationFailed("no merkle proof for \(txid) at height \(height) (\(error))")
            }
            let position = try Self.int(value["pos"], "get_merkle pos", in: 0...(1 << 30) - 1, checker: checker)
            let proofHeight = try Self.int(
                value["block_height"], "get_merkle block_height", in: 0...ReplyChecker.maxHeight, checker: checker)
            guard let items = value["merkle"]?.array, items.count <= 32 else {
                throw checker.invalid("get_merkle merkle", value["merkle"]?.value)
            }
            guard items.allSatisfy(\.isString) else {
                throw .protocolViolation("malformed get_merkle answer for \(txid)")
            }
            guard proofHeight == height else {
                throw .verificationFailed(
                    "merkle proof of \(txid) is for height \(proofHeight), history says \(height)")
            }
            let block: (header: BlockHeader, hashHex: String)
            if let checked = blocks[height] {
                block = checked
            } else {
                guard let header = headers[height] else { throw .protocolViolation("no header at height \(height)") }
                let checked = try verifier.verifyHeader(header, previous: headers[height - 1], height: height)
                block = (checked, checked.hashHex)
                blocks[height] = block
            }
            // The branch's hashes decoded from their hex where it is, into one array (no string or array for each).
            var hashes = [UInt8](repeating: 0, count: 32 * items.count)
            let bad = hashes.withUnsafeMutableBytes { all in
                items.indices.first { i in
                    !items[i].decodeHex(
                        into: UnsafeMutableRawBufferPointer(rebasing: all[(32 * i)..<(32 * i + 32)]), reversed: true)
                }
            }
            if let bad { throw MerkleProof.malformedHash(items[bad].string ?? "") }
            try MerkleProof(checkedPosition: position, hashes: hashes).verify(
                txid: txid, in: block.header, nodes: &proven[height, default: MerkleNodes()])
            update.anchors[txid] = BlockAnchor(height: height, blockHash: block.hashHex, verified: true)
        }
        // Only checked headers are kept: each proven block and the predecessor it was linked to.
        headerCache.withLock { cache in
            guard cache.tip == tip.hash else { return }
            for height in blocks.keys {
                cache.headers[height] = headers[height]
                if height > 0 { cache.headers[height - 1] = headers[height - 1] }
            }
        }
        return update
    }

    /// The headers of one `blockchain.block.headers` answer: exactly `range.count` of them.
    private func headerRange(_ result: Result<JSONElement, ChainError>, _ range: (start: Int, count: Int))
        throws(ChainError) -> [BlockHeader]
    {
        let value = try result.get().value
        let count = try checker.count(value["count"], "block.headers count", limit: Self.maxHeaderRange)
        guard count == range.count, let hex = value["hex"]?.string, hex.utf8.count == 160 * count,
            let bytes = try? [UInt8](hex: hex)
        else {
            throw .protocolViolation(
                "block.headers from \(range.start) gave \(count) headers or malformed hex, \(range.count) asked for")
        }
        var headers: [BlockHeader] = []
        headers.reserveCapacity(count)
        for i in 0..<count { headers.append(try BlockHeader(serialized: Array(bytes[(80 * i)..<(80 * i + 80)]))) }
        return headers
    }

    /// Whether `a`'s displayed hex sorts before `b`'s: their bytes compared from the last (lower-case hex keeps the
    /// order of the bytes it spells).
    static func displayOrder(_ a: Txid, _ b: Txid) -> Bool {
        a.bytes.withUnsafeBufferPointer { x in
            b.bytes.withUnsafeBufferPointer { y in
                var i = min(x.count, y.count) - 1
                while i >= 0 {
                    if x[i] != y[i] { return x[i] < y[i] }
                    i -= 1
                }
                return x.count < y.count
            }
        }
    }

    /// An integer field read in place (`ReplyChecker.int`, the same refusals): a plain integer in range at once,
    /// anything else through the checker.
    static func int(_ value: JSONElement?, _ field: String, in range: ClosedRange<Int>, checker: ReplyChecker)
        throws(ChainError) -> Int
    {
        if let number = value?.int, range.contains(number) { return number }
        return try checker.int(value?.value, field, in: range)
    }

    /// The most headers asked for in one `blockchain.block.headers` request (servers give at most 2,016).
    static let maxHeaderRange = 2016

    /// `heights` as contiguous ranges of at most `maxHeaderRange`, ascending.
    static func ranges(_ heights: Set<Int>) -> [(start: Int, count: Int)] {
        var ranges: [(start: Int, count: Int)] = []
        for height in heights.sorted() {
            if let last = ranges.last, last.start + last.count == height, last.count < maxHeaderRange {
                ranges[ranges.count - 1].count += 1
            } else {
                ranges.append((height, 1))
            }
        }
        return ranges
    }
}
