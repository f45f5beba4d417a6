import Bitcoin

/// A source of chain data for a watch-only wallet (BDK-style): it answers a `SyncRequest` with a `SyncUpdate` and never
/// sees the wallet itself.
///
/// The wallet applies the update; only the executable picks the implementation.
public protocol ChainSource: Sendable {
    /// A short human-readable name of the backend and where it points (no credentials).
    var displayName: String { get }

    /// The history of every requested script, the transactions it names, and their confirmations.
    ///
    /// - Throws: `ChainError`; `.verificationFailed` when the server's data does not check out.
    func sync(_ request: SyncRequest) async throws(ChainError) -> SyncUpdate

    /// The current best block.
    func tip() async throws(ChainError) -> BlockTip

    /// A fee rate expected to confirm within `targetBlocks` blocks.
    func feeRate(targetBlocks: Int) async throws(ChainError) -> FeeRate

    /// Sends a signed transaction to the network; returns its txid.
    func broadcast(_ transaction: Transaction) async throws(ChainError) -> Txid

    /// The chain the node follows (asked before a sync, so a wallet of another network is refused, not synced).
    func nodeChain() async throws(ChainError) -> NodeChain

    /// A one-line description of the server (software, version, chain) for `node test`.
    func serverInfo() async throws(ChainError) -> ServerInfo

    /// Closes any open connection.
    func close() async

    /// How many `sync` calls a wallet sync may keep in flight at once (1: one after another). A source above 1 must
    /// be safe to call from several tasks at once.
    var pipelineDepth: Int { get }
}

extension ChainSource {
    public var pipelineDepth: Int { 1 }
}

/// What the backend tells about itself.
public struct ServerInfo: Sendable, Equatable {
    /// Server software and version, as reported.
    public var software: String
    /// The chain's genesis block hash (display order), when the server reports it.
    public var genesisHash: String?
    /// The tip.
    public var tip: BlockTip
    /// How the backend syncs, when it has more than one way (Bitcoin Core: a node-side watch-only wallet or
    /// `scantxoutset`); nil otherwise.
    public var mode: String?

    public init(software: String, genesisHash: String?, tip: BlockTip, mode: String? = nil) {
        self.software = software
        self.genesisHash = genesisHash
        self.tip = tip
        self.mode = mode
    }
}

/// A descriptor of the wallet with the highest index a sync needs, for a backend that watches descriptors on the node
/// itself (Bitcoin Core's watch-only wallet).
///
/// Backends that look scripts up one by one ignore it.
public struct WatchedDescriptor: Sendable, Equatable {
    /// The single-path descriptor, normalised, with its checksum.
    public var descriptor: String
    /// Whether it is the change (internal) keychain.
    public var isChange: Bool
    /// The last index that must be watched; nil for a descriptor without a wildcard.
    public var rangeEnd: Int?

    public init(descriptor: String, isChange: Bool, rangeEnd: Int?) {
        self.descriptor = descriptor
        self.isChange = isChange
        self.rangeEnd = rangeEnd
    }
}

/// The best block: height and hash (display order hex).
public struct BlockTip: Sendable, Equatable, Codable {
    public var height: Int
    public var hash: String

    public init(height: Int, hash: String) {
        self.height = height
        self.hash = hash
    }
}

/// Where a transaction is confirmed.
public struct BlockAnchor: Sendable, Equatable {
    /// The block height.
    public var height: Int
    /// The block hash (display order hex).
    public var blockHash: String
    /// Whether the backend checked it against a merkle proof and the header chain (or it comes from the user's own
    /// trusted node).
    public var verified: Bool

    public init(height: Int, blockHash: String, verified: Bool) {
        self.height = height
        self.blockHash = blockHash
        self.verified = verified
    }
}

/// A request to sync: which scripts to look at and what the wallet already holds.
public struct SyncRequest: Sendable {
    /// The scriptPubKeys to fetch the history of.
    public var scripts: [Script]
    /// Transactions the wallet already has, with their confirmation if known: the backend need not fetch them again,
    /// nor re-verify a confirmation at the same height.
    public var known: [Txid: BlockAnchor?]
    /// The transactions the wallet already has (to check that a history entry spends from the script).
    public var knownTransactions: [Txid: Transaction]
    /// Outputs the wallet believes unspent for these scripts (a `scantxoutset` backend uses them to spot spends).
    public var knownOutpoints: [OutPoint: Script]
    /// The wallet's descriptors and how far each must be watched (covering `scripts` and the gap beyond them).
    public var descriptors: [WatchedDescriptor]

    public init(
        scripts: [Script], known: [Txid: BlockAnchor?] = [:], knownTransactions: [Txid: Transaction] = [:],
        knownOutpoints: [OutPoint: Script] = [:], descriptors: [WatchedDescriptor] = []
    ) {
        self.scripts = scripts
        self.known = known
        self.knownTransactions = knownTransactions
        self.knownOutpoints = knownOutpoints
        self.descriptors = descriptors
    }
}

/// One entry of a script's history.
public struct HistoryEntry: Sendable, Equatable, Hashable {
    /// The transaction.
    public var txid: Txid
    /// Its block height, or nil while unconfirmed.
    public var height: Int?

    public init(txid: Txid, height: Int?) {
        self.txid = txid
        self.height = height
    }
}

/// The answer to a `SyncRequest`.
public struct SyncUpdate: Sendable {
    /// The tip at the time of the sync.
    public var tip: BlockTip
    /// The history of every requested script (empty when unused).
    public var histories: [Script: [HistoryEntry]]
    /// Transactions the wallet did not have.
    public var transactions: [Txid: Transaction]
    /// The serialization of some of `transactions` as the backend sent it, already parsed to that transaction and
    /// hashed to its txid (so it is what `serialized()` gives): a store writes it instead of serializing again.
    public var rawTransactions: [Txid: [UInt8]] = [:]
    /// Confirmations established (and verified where the backend can) in this sync.
    public var anchors: [Txid: BlockAnchor]
    /// Outputs of `SyncRequest.knownOutpoints` that the backend saw spent without knowing the spending transaction
    /// (`scantxoutset`); empty for backends with full history.
    public var spentElsewhere: Set<OutPoint>
    /// How the backend answered, when it has more than one way (see `ServerInfo.mode`).
    public var mode: String?

    public init(
        tip: BlockTip, histories: [Script: [HistoryEntry]] = [:], transactions: [Txid: Transaction] = [:],
        anchors: [Txid: BlockAnchor] = [:], spentElsewhere: Set<OutPoint> = [], mode: String? = nil
    ) {
        self.tip = tip
        self.histories = histories
        self.transactions = transactions
        self.anchors = anchors
        self.spentElsewhere = spentElsewhere
        self.mode = mode
    }
}
