import Bitcoin
import ChainCore

/// A `ChainSource` of fixed answers, with no socket.
///
/// It holds a chain of transactions (each confirmed at a height, or unconfirmed) and answers every sync from it as an
/// Electrum server would: the wallet's logic, tested on its own.
struct FixedChainSource: ChainSource {
    var tipHeight: Int
    /// The transactions the chain holds, in order.
    var transactions: [Transaction]
    /// The height of each confirmed transaction; the others are unconfirmed.
    var heights: [Txid: Int] = [:]
    /// A block hash per height (a reorg changes it); `hash(height)` when absent.
    var blockHashes: [Int: String] = [:]
    /// The answer to `feeRate`; nil means "no estimate".
    var estimate: FeeRate? = FeeRate(satsPerKVB: 5000)
    /// The answer to `nodeChain`: regtest unless a test says otherwise.
    var chain = NodeChain(genesisHash: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")

    var displayName: String { "fixed" }

    /// A made-up block hash for `height`; `fork` gives the hash of another branch at that height.
    static func hash(_ height: Int, fork: Int = 0) -> String {
        let hex = String(height, radix: 16)
        return String(fork, radix: 16) + String(repeating: "0", count: 63 - hex.count) + hex
    }

    func blockHash(_ height: Int) -> String { blockHashes[height] ?? Self.hash(height) }

    func tip() async throws(ChainError) -> BlockTip { BlockTip(height: tipHeight, hash: blockHash(tipHeight)) }

    func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate {
        var update = SyncUpdate(tip: try await tip())
        var outputScript: [OutPoint: Script] = [:]
        for tx in transactions {
            for (vout, output) in tx.outputs.enumerated() {
                outputScript[OutPoint(txid: tx.txid, vout: UInt32(vout))] = output.scriptPubKey
            }
        }
        for script in request.scripts {
            var entries: [HistoryEntry] = []
            for tx in transactions {
                let pays = tx.outputs.contains { $0.scriptPubKey == script }
                let spends = tx.inputs.contains { outputScript[$0.previousOutput] == script }
                guard pays || spends else { continue }
                entries.append(HistoryEntry(txid: tx.txid, height: heights[tx.txid]))
                if request.known[tx.txid] == nil { update.transactions[tx.txid] = tx }
                if let height = heights[tx.txid] {
                    let anchor = BlockAnchor(height: height, blockHash: blockHash(height), verified: true)
                    if (request.known[tx.txid] ?? nil) != anchor { update.anchors[tx.txid] = anchor }
                }
            }
            update.histories[script] = entries
        }
        return update
    }

    func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate {
        guard let estimate else { throw .noFeeEstimate(server: displayName, targetBlocks: targetBlocks) }
        return estimate
    }

    func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid { transaction.txid }

    func serverInfo() async throws(ChainError) -> ServerInfo {
        ServerInfo(software: "fixed", genesisHash: nil, tip: try await tip())
    }

    func nodeChain() async throws(ChainError) -> NodeChain { chain }

    func close() async {}
}

/// Transactions for the fixed chain.
enum TestTransactions {
    /// A payment of `sats` to `script` from a coin of nobody in the wallet (`seed` makes it unique).
    static func funding(_ script: Script, sats: UInt64, seed: UInt8) throws -> Transaction {
        let foreign = try Txid(bytes: [UInt8](repeating: seed, count: 32))
        return Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: foreign, vout: 0), sequence: .final)],
            outputs: [TxOut(value: try Amount(sats: sats), scriptPubKey: script)])
    }

    /// A spend of `coins` (outpoint and value) paying `outputs`, signalling RBF when `rbf`.
    static func spend(_ coins: [OutPoint], outputs: [(Script, UInt64)], rbf: Bool = true) throws -> Transaction {
        Transaction(
            inputs: coins.map { TxIn(previousOutput: $0, sequence: rbf ? .replaceByFee : .final) },
            outputs: try outputs.map { TxOut(value: try Amount(sats: $0.1), scriptPubKey: $0.0) })
    }

    /// A P2WPKH script of a key hash nobody in the tests owns.
    static func foreignScript(_ byte: UInt8) -> Script { Script([0x00, 0x14] + [UInt8](repeating: byte, count: 20)) }
}
