import Codecs
public import Ethereum

/// A block a state read refers to.
public enum EthBlockTag: Sendable, Equatable {
    case latest
    case pending
    case number(UInt64)

    /// The JSON-RPC parameter.
    public var json: JSONValue {
        switch self {
        case .latest: "latest"
        case .pending: "pending"
        case .number(let n): .string(EthHex.quantity(n))
        }
    }
}

/// An `eth_feeHistory` answer: base fees of the blocks and of the next one, gas-used ratios, rewards per percentile.
public struct EthFeeHistory: Sendable, Equatable {
    public var oldestBlock: UInt64
    /// One more than the blocks asked for: the last is the next block's base fee.
    public var baseFeePerGas: [UInt256]
    public var gasUsedRatio: [Double]
    /// Per block, the priority fee at each requested percentile.
    public var reward: [[UInt256]]

    public init(oldestBlock: UInt64, baseFeePerGas: [UInt256], gasUsedRatio: [Double], reward: [[UInt256]]) {
        self.oldestBlock = oldestBlock
        self.baseFeePerGas = baseFeePerGas
        self.gasUsedRatio = gasUsedRatio
        self.reward = reward
    }
}

/// A log entry of a receipt or of `eth_getLogs`.
public struct EthLog: Sendable, Equatable {
    public var address: EthereumAddress
    /// 32 bytes each.
    public var topics: [[UInt8]]
    public var data: [UInt8]
    public var blockNumber: UInt64
    public var transactionHash: [UInt8]
    public var logIndex: UInt64

    public init(
        address: EthereumAddress, topics: [[UInt8]], data: [UInt8], blockNumber: UInt64, transactionHash: [UInt8],
        logIndex: UInt64
    ) {
        self.address = address
        self.topics = topics
        self.data = data
        self.blockNumber = blockNumber
        self.transactionHash = transactionHash
        self.logIndex = logIndex
    }
}

/// A transaction receipt.
public struct EthReceipt: Sendable, Equatable {
    public var transactionHash: [UInt8]
    public var blockNumber: UInt64
    /// True for status 1, false for a reverted transaction (status 0).
    public var succeeded: Bool
    public var gasUsed: UInt64
    public var effectiveGasPrice: UInt256
    public var logs: [EthLog]

    public init(
        transactionHash: [UInt8], blockNumber: UInt64, succeeded: Bool, gasUsed: UInt64,
        effectiveGasPrice: UInt256, logs: [EthLog]
    ) {
        self.transactionHash = transactionHash
        self.blockNumber = blockNumber
        self.succeeded = succeeded
        self.gasUsed = gasUsed
        self.effectiveGasPrice = effectiveGasPrice
        self.logs = logs
    }
}

/// What `eth_getTransactionByHash` tells about a transaction.
public struct EthTransactionInfo: Sendable, Equatable {
    public var hash: [UInt8]
    public var from: EthereumAddress
    public var nonce: UInt64
    /// nil while pending.
    public var blockNumber: UInt64?

    public init(hash: [UInt8], from: EthereumAddress, nonce: UInt64, blockNumber: UInt64?) {
        self.hash = hash
        self.from = from
        self.nonce = nonce
        self.blockNumber = blockNumber
    }
}

/// An `eth_getLogs` filter over a block range.
public struct EthLogFilter: Sendable, Equatable {
    public var fromBlock: UInt64
    public var toBlock: UInt64
    /// The contracts (empty: any).
    public var addresses: [EthereumAddress]
    /// Per position, the topics accepted there (nil: any).
    public var topics: [[[UInt8]]?]

    public init(fromBlock: UInt64, toBlock: UInt64, addresses: [EthereumAddress], topics: [[[UInt8]]?]) {
        self.fromBlock = fromBlock
        self.toBlock = toBlock
        self.addresses = addresses
        self.topics = topics
    }

    /// Whether `log` matches this filter (a node's answer is checked against it).
    public func matches(_ log: EthLog) -> Bool {
        guard (fromBlock...toBlock).contains(log.blockNumber) else { return false }
        if !addresses.isEmpty, !addresses.contains(log.address) { return false }
        for (position, accepted) in topics.enumerated() {
            guard let accepted else { continue }
            guard position < log.topics.count, accepted.contains(log.topics[position]) else { return false }
        }
        return true
    }
}

/// An `eth_call` in a batch of reads.
public struct EthCall: Sendable, Equatable {
    public var to: EthereumAddress
    public var data: [UInt8]

    public init(to: EthereumAddress, data: [UInt8]) {
        self.to = to
        self.data = data
    }
}

/// An Ethereum node as the wallet sees it (docs/architecture.md section 10).
///
/// The JSON-RPC reads and the broadcast
/// that the watcher needs, each answer already parsed strictly. `ChainBackends.EthereumRPC` is the real one; tests
/// give fixed answers.
public protocol EthereumNode: Sendable {
    /// The node's URL without credentials.
    var displayName: String { get }
    func chainID() async throws(ChainError) -> UInt64
    func blockNumber() async throws(ChainError) -> UInt64
    func balance(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError) -> Wei
    func transactionCount(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError) -> UInt64
    func call(_ call: EthCall, at block: EthBlockTag) async throws(ChainError) -> [UInt8]
    /// Several `eth_call`s (one batch where the node allows).
    func calls(_ calls: [EthCall], at block: EthBlockTag) async throws(ChainError) -> [[UInt8]]
    func estimateGas(from: EthereumAddress, to: EthereumAddress, value: Wei, data: [UInt8]) async throws(ChainError)
        -> UInt64
    func feeHistory(blocks: Int, percentiles: [Double]) async throws(ChainError) -> EthFeeHistory
    func maxPriorityFeePerGas() async throws(ChainError) -> UInt256
    /// Sends a signed transaction; returns the hash the node reports.
    func sendRawTransaction(_ raw: [UInt8]) async throws(ChainError) -> [UInt8]
    func receipt(hash: [UInt8]) async throws(ChainError) -> EthReceipt?
    func transaction(hash: [UInt8]) async throws(ChainError) -> EthTransactionInfo?
    /// The logs of `filter`, the range split when the node limits it; each log checked against the filter.
    func logs(_ filter: EthLogFilter) async throws(ChainError) -> [EthLog]
}

extension EthereumNode {
    /// Refuses a node on another chain than `expected`.
    ///
    /// - Throws: `ChainError.wrongChain` naming both chain ids and the `--chain-id` to import the account with.
    public func checkChain(_ expected: UInt64, account: String = "the account") async throws(ChainError) {
        let actual = try await chainID()
        guard actual == expected else {
            throw .wrongChain(
                EthereumChainMessage.mismatch(
                    node: displayName, nodeChainID: actual, account: account, accountChainID: expected))
        }
    }
}

/// The words for an Ethereum account and a node on different chains.
public enum EthereumChainMessage {
    /// Names of the chain ids users meet most.
    public static func name(_ chainID: UInt64) -> String? {
        switch chainID {
        case 1: "Ethereum mainnet"
        case 11_155_111: "Sepolia"
        case 17000: "Holesky"
        case 560_048: "Hoodi"
        case 10: "OP Mainnet"
        case 137: "Polygon"
        case 8453: "Base"
        case 42161: "Arbitrum One"
        default: nil
        }
    }

    /// `1 (Ethereum mainnet)`, or the bare number.
    public static func describe(_ chainID: UInt64) -> String {
        name(chainID).map { "\(chainID) (\($0))" } ?? "\(chainID)"
    }

    /// The account is on one chain, the node on another: both named, and the flag to use.
    public static func mismatch(node: String, nodeChainID: UInt64, account: String, accountChainID: UInt64) -> String {
        let who = account == "the account" ? account : "account '\(account)'"
        return "\(who) is on chain id \(describe(accountChainID)), the node \(node) is on chain id "
            + "\(describe(nodeChainID)): point the watcher at a node of chain \(accountChainID) (airlock-watcher node "
            + "set eth+http://HOST:PORT), or import the account for this node with --chain-id \(nodeChainID) "
            + "(airlock-watcher wallets delete \(account == "the account" ? "NAME" : account) first)"
    }
}
