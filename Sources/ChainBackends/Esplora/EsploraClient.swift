import Bitcoin
import BitcoinCrypto
import ChainCore
import Codecs

/// An Esplora REST server (Blockstream's or mempool.space's API) as a `ChainSource`: `/scripthash/…/txs` (paged through
/// `/txs/chain/LAST`), `/tx/…/hex`, `/blocks/tip/…`, `/fee-estimates`, `POST /tx`.
///
/// Confirmations are
/// checked like Electrum's: `/tx/…/merkle-proof` against `/block/…/header`, linked to the previous header.
public final class EsploraClient: ChainSource, @unchecked Sendable {
    private let http: HTTPClient
    private let basePath: String
    private let verifier: ProofVerifier
    private let url: String
    private let checker: ReplyChecker

    public init(
        host: String, port: Int, basePath: String, tls: NodeURL.TLSOptions?, network: Network, timeout: Int = 60,
        proxy: SOCKSProxy? = nil
    ) {
        http = HTTPClient(host: host, port: port, tls: tls, timeout: timeout, proxy: proxy)
        self.basePath = basePath
        verifier = ProofVerifier(network: network)
        url = "esplora+\(tls == nil ? "http" : "https")://\(host):\(port)\(basePath)"
        checker = ReplyChecker(server: url)
    }

    public var displayName: String { url }

    public func close() async {}

    private func get(_ path: String) async throws(ChainError) -> [UInt8] {
        let response = try await http.request(method: "GET", path: basePath + path, headers: ["Accept": "*/*"])
        guard response.status == 200 else {
            throw .http(status: response.status, body: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
        return response.body
    }

    private func getText(_ path: String) async throws(ChainError) -> String {
        String(decoding: try await get(path), as: UTF8.self).trimmingWhitespace()
    }

    public func tip() async throws(ChainError) -> BlockTip {
        let heightText = try await getText("/blocks/tip/height")
        let hash = try await getText("/blocks/tip/hash")
        guard let height = Int(heightText), (0...ReplyChecker.maxHeight).contains(height) else {
            throw checker.invalid("/blocks/tip/height", .string(String(heightText.prefix(80))))
        }
        guard hash.count == 64, (try? [UInt8](hex: hash)) != nil else { throw .protocolViolation("tip hash '\(hash)'") }
        return BlockTip(height: height, hash: hash)
    }

    /// The chain of the genesis block hash (`/block-height/0`).
    public func nodeChain() async throws(ChainError) -> NodeChain {
        let genesis = try await getText("/block-height/0")
        guard genesis.count == 64, (try? [UInt8](hex: genesis)) != nil else {
            throw checker.invalid("/block-height/0", .string(String(genesis.prefix(80))))
        }
        return NodeChain(genesisHash: genesis)
    }

    public func serverInfo() async throws(ChainError) -> ServerInfo {
        let tip = try await tip()
        let genesis = try await getText("/block-height/0")
        return ServerInfo(software: "Esplora", genesisHash: genesis, tip: tip)
    }

    public func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        try Self.feeRate(
            estimates: try JSONValue.parse(try await get("/fee-estimates")), targetBlocks: targetBlocks,
            checker: checker)
    }

    /// The rate of Esplora's `/fee-estimates` table (target blocks to sat/vB) for the largest target not above the
    /// one asked for.
    ///
    /// - Throws: `ChainError.noFeeEstimate` when the table has none, `.invalidField` for a rate that is not a
    ///   positive finite number within `ReplyChecker.maxFeeRate`.
    package static func feeRate(estimates: JSONValue, targetBlocks: Int, checker: ReplyChecker) throws(ChainError)
        -> FeeRate
    {
        guard let table = estimates.object else { throw checker.invalid("/fee-estimates", estimates) }
        var best: (blocks: Int, value: JSONValue)?
        for (key, value) in table {
            guard let blocks = Int(key), blocks >= 1, blocks <= max(1, targetBlocks) else { continue }
            if best.map({ blocks > $0.blocks }) ?? true { best = (blocks, value) }
        }
        guard let best,
            let rate = try checker.feeRate(best.value, "/fee-estimates[\(best.blocks)]", satsPerKVBPerUnit: 1000)
        else { throw .noFeeEstimate(server: checker.server, targetBlocks: targetBlocks) }
        return rate
    }

    public func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid {
        let response = try await http.request(
            method: "POST", path: basePath + "/tx", headers: ["Content-Type": "text/plain"],
            body: Array(transaction.serialized().hexString.utf8))
        let text = String(decoding: response.body, as: UTF8.self).trimmingWhitespace()
        guard response.status == 200 else { throw .rejected(text) }
        guard let txid = try? Txid(hex: text) else {
            throw .protocolViolation("POST /tx returned '\(text.prefix(80))'")
        }
        return txid
    }

    public func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        let tip = try await tip()
        var update = SyncUpdate(tip: tip)
        var needed: [Txid: Int?] = [:]
        for script in request.scripts {
            let hash = SHA256.hash(script.bytes).reversed().hexString
            var entries: [HistoryEntry] = []
            var path = "/scripthash/\(hash)/txs"
            var pages = 0
            while true {
                pages += 1
                guard pages <= 10_000 else { throw .protocolViolation("history of \(hash) does not end") }
                let page = try JSONValue.parse(try await get(path))
                guard let items = page.array else { throw .protocolViolation("/scripthash/…/txs is not a list") }
                var lastConfirmed: Txid?
                var confirmedCount = 0
                for item in items {
                    guard let text = item["txid"]?.string, let txid = try? Txid(hex: text),
                        let confirmed = item["status"]?["confirmed"]?.bool
                    else { throw .protocolViolation("malformed transaction in history of \(hash)") }
                    var height: Int?
                    if confirmed {
                        let h = try checker.height(item["status"]?["block_height"], "status.block_height of \(txid)")
                        guard h <= tip.height else {
                            throw .verificationFailed("transaction \(txid) claims a block height above the tip")
                        }
                        height = h
                        lastConfirmed = txid
                        confirmedCount += 1
                    }
                    if !entries.contains(where: { $0.txid == txid }) {
                        entries.append(HistoryEntry(txid: txid, height: height))
                        needed[txid] = height
                    }
                }
                // Esplora pages confirmed history 25 at a time (after up to 50 mempool entries on the first page).
                guard confirmedCount >= 25, let last = lastConfirmed else { break }
                path = "/scripthash/\(hash)/txs/chain/\(last.hexString)"
            }
            // Oldest first, like Electrum: confirmed by height, then unconfirmed.
            update.histories[script] = entries.sorted { ($0.height ?? Int.max) < ($1.height ?? Int.max) }
        }
        for txid in needed.keys.sorted(by: { $0.hexString < $1.hexString }) where request.known[txid] == nil {
            let hex = try await getText("/tx/\(txid.hexString)/hex")
            guard let raw = try? [UInt8](hex: hex) else { throw .protocolViolation("/tx/\(txid)/hex is not hex") }
            update.transactions[txid] = try verifier.verifyTransaction(raw: raw, claimed: txid)
        }
        for (script, entries) in update.histories {
            try verifier.verifyHistory(script: script, entries: entries) { txid in
                update.transactions[txid] ?? request.knownTransactions[txid]
            }
        }
        var headers: [Int: BlockHeader] = [:]
        func header(at height: Int) async throws(ChainError) -> BlockHeader {
            if let cached = headers[height] { return cached }
            let hash = try await getText("/block-height/\(height)")
            let header = try BlockHeader(hex: try await getText("/block/\(hash)/header"))
            guard header.hashHex == hash else {
                throw .verificationFailed("header served for block \(hash) hashes to \(header.hashHex)")
            }
            headers[height] = header
            return header
        }
        for (txid, height) in needed.sorted(by: { $0.key.hexString < $1.key.hexString }) {
            guard let height else { continue }
            if let known = request.known[txid] ?? nil, known.height == height, known.verified { continue }
            let proof = try JSONValue.parse(try await get("/tx/\(txid.hexString)/merkle-proof"))
            let position = try checker.count(proof["pos"], "merkle-proof pos of \(txid)", limit: (1 << 30) - 1)
            guard let items = proof["merkle"]?.array, items.count <= 32 else {
                throw checker.invalid("merkle-proof merkle of \(txid)", proof["merkle"])
            }
            let branch = items.compactMap(\.string)
            guard branch.count == items.count,
                try checker.height(proof["block_height"], "merkle-proof block_height of \(txid)") == height
            else { throw .verificationFailed("merkle proof of \(txid) is malformed or for another height") }
            let current = try await header(at: height)
            var previous: BlockHeader?
            if height > 0 { previous = try await header(at: height - 1) }
            let block = try verifier.verifyHeader(current, previous: previous, height: height)
            try MerkleProof(position: position, displayHex: branch).verify(txid: txid, in: block)
            update.anchors[txid] = BlockAnchor(height: height, blockHash: block.hashHex, verified: true)
        }
        return update
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
