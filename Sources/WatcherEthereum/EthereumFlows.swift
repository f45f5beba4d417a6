import AirgapTransport
import ChainCore
import Ethereum
import Foundation
import Watcher

/// The watcher's Ethereum commands as flows (docs/architecture.md section 10): each takes its options, the store and
/// the node, and returns a report with its `--json` shape; none prints, prompts or exits, so the command line and the
/// web app (issue 29) share them.
///
/// The node is passed as a closure: a flow asks for it only once the local checks passed, so a missing node is
/// reported after a mistyped index or token, as before.
public enum EthereumFlows {
    public typealias NodeProvider = () throws -> any EthereumNode

    // MARK: send and bump

    /// What `send` is asked.
    public struct SendOptions: Sendable {
        public var wallet: String?
        /// The recipient as typed.
        public var to: String
        /// The amount as typed: `0.1eth`, `5gwei`, `100wei`; with `token`, token units (`12.5`); nil with `max`.
        public var amount: String?
        /// Everything: the ETH beyond the worst-case fee, or all of the token.
        public var max: Bool
        /// A followed token's symbol or contract.
        public var token: String?
        /// Fees per gas in gwei as typed.
        public var maxFee: String?
        public var priorityFee: String?
        public var gasLimit: UInt64?
        /// The sending address's index in the account.
        public var index: Int

        public init(
            wallet: String?, to: String, amount: String?, max: Bool, token: String?, maxFee: String?,
            priorityFee: String?, gasLimit: UInt64?, index: Int
        ) {
            self.wallet = wallet
            self.to = to
            self.amount = amount
            self.max = max
            self.token = token
            self.maxFee = maxFee
            self.priorityFee = priorityFee
            self.gasLimit = gasLimit
            self.index = index
        }
    }

    /// Builds an EIP-1559 transaction, keeps it in the store and returns its `eth-sign-request`.
    public static func send(_ options: SendOptions, store: Store, node makeNode: NodeProvider) async throws
        -> EthereumRequestReport
    {
        let recipient = try EthereumInputs.address(options.to, what: "--to")
        let account = try store.ethereumAccount(named: options.wallet)
        let entry = try account.entry(index: options.index)
        let tokens = try store.ethereumTokens(accountID: account.id ?? 0)
        let followed = try options.token.map { text throws(EthereumWalletError) in
            try EthereumToken.find(text, among: tokens)
        }
        let tip = try options.priorityFee.map { text throws(EthereumWalletError) in
            try EthereumInputs.gwei(text, option: "--priority-fee")
        }
        let cap = try options.maxFee.map { text throws(EthereumWalletError) in
            try EthereumInputs.gwei(text, option: "--max-fee")
        }
        let node = try makeNode()
        try await node.checkChain(account.chainID, account: account.name)
        let nonce = try await node.transactionCount(of: entry.address, at: .pending)
        let balance = try await node.balance(of: entry.address, at: .latest)
        let fees = try await suggestedFees(node: node, priority: tip, maxFee: cap)
        let (payment, tokenBalance, gas) = try await payment(
            options, token: followed, from: entry.address, to: recipient, node: node)
        let built = try EthereumSpend.build(
            account: account, entry: entry, to: recipient, payment: payment, fees: fees, gasLimit: gas,
            nonce: nonce, balance: balance, tokenBalance: tokenBalance)
        try store.addEthereumTransaction(built.record, accountID: account.id ?? 0)
        return try EthereumRequestReport(built: built, kind: .send(token: followed))
    }

    /// The fees: those given, the rest from the node's fee history (and its suggested priority fee when the history
    /// holds no rewards).
    static func suggestedFees(node: any EthereumNode, priority: UInt256?, maxFee: UInt256?, alwaysAsk: Bool = false)
        async throws -> EthereumSpend.Fees
    {
        var history: EthFeeHistory?
        var fallback: UInt256?
        if alwaysAsk || priority == nil || maxFee == nil {
            history = try await node.feeHistory(blocks: 5, percentiles: [EthereumSpend.rewardPercentile])
            if alwaysAsk || priority == nil { fallback = try? await node.maxPriorityFeePerGas() }
        }
        return try EthereumSpend.fees(history: history, fallbackPriority: fallback, priority: priority, maxFee: maxFee)
    }

    /// What is paid (ETH or a token transfer), the token balance for a token, and the gas limit.
    static func payment(
        _ options: SendOptions, token: EthereumToken?, from: EthereumAddress, to recipient: EthereumAddress,
        node: any EthereumNode
    ) async throws -> (EthereumSpend.Payment, UInt256?, UInt64) {
        guard let token else {
            let payment: EthereumSpend.Payment =
                options.max ? .allEther : .ether(try EthereumInputs.etherAmount(options.amount ?? ""))
            if let gas = options.gasLimit { return (payment, nil, gas) }
            let estimate = try await node.estimateGas(from: from, to: recipient, value: Wei(.zero), data: [])
            return (payment, nil, EthereumInputs.gasLimit(estimate: estimate, isContractCall: false))
        }
        let answer = try await node.call(EthCall(to: token.contract, data: ERC20Read.balanceOf(from)), at: .latest)
        let held = try ERC20Read.uint(answer, server: node.displayName, field: "balanceOf")
        let units = options.max ? held : try EthereumSpend.baseUnits(options.amount ?? "", decimals: token.decimals)
        let payment = EthereumSpend.Payment.token(contract: token.contract, amount: units)
        if let gas = options.gasLimit { return (payment, held, gas) }
        let calldata = ERC20Call.transfer(to: recipient, amount: units).calldata
        let estimate = try await node.estimateGas(from: from, to: token.contract, value: Wei(.zero), data: calldata)
        return (payment, held, EthereumInputs.gasLimit(estimate: estimate, isContractCall: true))
    }

    /// Replaces the pending transaction `transaction` (its hash or request id) by one with the same nonce and higher
    /// fees, kept in the store as a new request.
    public static func bump(
        _ transaction: String, wallet: String?, maxFee: String?, priorityFee: String?, store: Store,
        node makeNode: NodeProvider
    ) async throws -> EthereumRequestReport {
        let account = try store.ethereumAccount(named: wallet)
        let id = account.id ?? 0
        let record = try record(transaction, in: try store.ethereumTransactions(accountID: id))
        let node = try makeNode()
        try await node.checkChain(account.chainID, account: account.name)
        let tip = try priorityFee.map { text throws(EthereumWalletError) in
            try EthereumInputs.gwei(text, option: "--priority-fee")
        }
        let cap = try maxFee.map { text throws(EthereumWalletError) in
            try EthereumInputs.gwei(text, option: "--max-fee")
        }
        let fees = try await suggestedFees(node: node, priority: tip, maxFee: cap, alwaysAsk: true)
        let balance = try await node.balance(of: record.from, at: .latest)
        let built = try EthereumSpend.bump(record, account: account, fees: fees, balance: balance)
        try store.addEthereumTransaction(built.record, accountID: id)
        return try EthereumRequestReport(built: built, kind: .bump)
    }

    /// The record `key` (a transaction hash or a request id, any case) names among `records`.
    public static func record(_ key: String, in records: [EthereumTxRecord]) throws(EthereumWalletError)
        -> EthereumTxRecord
    {
        let lower = key.lowercased()
        guard let found = records.first(where: { $0.hash == lower || $0.requestID == lower }) else {
            throw .invalid("the account built no transaction \(key)")
        }
        return found
    }

    // MARK: broadcast

    /// Broadcasts the transaction `signature` signs.
    ///
    /// With `wait`, waits up to `timeout` seconds for its receipt and
    /// syncs. `broadcasted` is told the hash once the node took it.
    public static func broadcast(
        _ signature: UREthSignature, wallet: String?, wait: Bool, timeout: Int, store: Store,
        node makeNode: NodeProvider, broadcasted: (String) -> Void = { _ in }
    ) async throws -> EthereumBroadcastReport {
        let account = try store.ethereumAccount(named: wallet)
        let id = account.id ?? 0
        let signed = try EthereumBroadcast.assemble(signature, records: try store.ethereumTransactions(accountID: id))
        let node = try makeNode()
        try await node.checkChain(account.chainID, account: account.name)
        let answered = try await node.sendRawTransaction(signed.raw)
        guard answered == signed.hash else {
            throw ChainError.verificationFailed(
                "the node reports hash \(EthHex.data(answered)) for the transaction \(EthHex.data(signed.hash))")
        }
        let hash = EthHex.data(signed.hash)
        try store.markBroadcast(requestID: signed.record.requestID, accountID: id, hash: hash, signed: signed.raw)
        broadcasted(hash)
        var record = signed.record
        record.status = .pending
        guard wait else { return EthereumBroadcastReport(hash: hash, record: record) }
        let deadline = Date().addingTimeInterval(TimeInterval(timeout))
        while try await node.receipt(hash: signed.hash) == nil {
            guard Date() < deadline else {
                throw ChainError.timeout(operation: "waiting for the receipt of \(hash)", seconds: timeout)
            }
            try await Task.sleep(nanoseconds: 500_000_000)
        }
        _ = try await EthereumSync.sync(account: account, store: store, node: node)
        let settled = try store.ethereumTransactions(accountID: id).first { $0.requestID == record.requestID }
        return EthereumBroadcastReport(hash: hash, record: settled ?? record)
    }

    // MARK: import

    /// What an account to import is: one address, or the signer's account key.
    public enum AccountSource: Sendable {
        case address(EthereumAddress)
        case hdKey(URHDKey)
    }

    /// Imports the account `source` reads on `chainID`, else on the default chain.
    ///
    /// When a node is set (`node` not nil) its chain id is asked first: a default chain id it contradicts is refused,
    /// a given one imported with the report's warning; a node that does not answer is only noted (`notice`).
    /// `source` is read after that question, so its complaint comes after the chain's.
    public static func importAccount(
        _ source: () throws -> AccountSource, name: String, chainID: UInt64?, addresses: Int, store: Store,
        node makeNode: NodeProvider?, notice: (String) -> Void = { _ in }
    ) async throws -> EthereumImportReport {
        var nodeChainID: UInt64?
        var nodeName: String?
        if let makeNode {
            let node = try makeNode()
            nodeName = node.displayName
            do { nodeChainID = try await node.chainID() } catch {
                notice("note: the Ethereum node did not answer, its chain id is not checked: \(error)")
            }
        }
        let choice = try EthereumChainChoice.choose(given: chainID, nodeChainID: nodeChainID, node: nodeName)
        let account: EthereumAccount =
            switch try source() {
            case .address(let address): EthereumAccount(name: name, chainID: choice.chainID, address: address)
            case .hdKey(let key): try EthereumAccount(name: name, chainID: choice.chainID, hdKey: key, count: addresses)
            }
        return EthereumImportReport(account: try store.addEthereumAccount(account), warning: choice.warning)
    }

    // MARK: the account as stored

    /// The transactions the watcher built and the token transfers sync found.
    public static func history(wallet: String?, store: Store) throws(EthereumWalletError) -> EthereumHistoryReport {
        let account = try store.ethereumAccount(named: wallet)
        let id = account.id ?? 0
        return EthereumHistoryReport(
            transactions: try store.ethereumTransactions(accountID: id),
            transfers: try store.ethereumTransfers(accountID: id), tokens: try store.ethereumTokens(accountID: id))
    }

    /// ETH and token balances as of the last sync.
    public static func balance(wallet: String?, store: Store) throws(EthereumWalletError) -> EthereumBalanceReport {
        let account = try store.ethereumAccount(named: wallet)
        return EthereumBalanceReport(account: account, tokens: try store.ethereumTokens(accountID: account.id ?? 0))
    }

    /// An address of the account and its EIP-681 payment URI: for `amount` of ETH, or with `token` (a followed
    /// contract) for that many token units.
    public static func receive(wallet: String?, index: Int, amount: String?, token: String?, store: Store)
        throws(EthereumWalletError) -> EthereumReceiveReport
    {
        let account = try store.ethereumAccount(named: wallet)
        let entry = try account.entry(index: index)
        let chain = account.chainID == 1 ? "" : "@\(account.chainID)"
        guard let token else {
            var uri = "ethereum:\(entry.address.checksummed)\(chain)"
            if let amount { uri += "?value=\(try EthereumInputs.etherAmount(amount).amount)" }
            return EthereumReceiveReport(entry: entry, uri: uri)
        }
        let contract = try EthereumInputs.address(token, what: "--token")
        guard let known = try store.ethereumTokens(accountID: account.id ?? 0).first(where: { $0.contract == contract })
        else { throw .invalid("the account follows no token \(contract); token add first") }
        var uri = "ethereum:\(contract.checksummed)\(chain)/transfer?address=\(entry.address.checksummed)"
        if let amount { uri += "&uint256=\(try EthereumSpend.baseUnits(amount, decimals: known.decimals))" }
        return EthereumReceiveReport(entry: entry, uri: uri)
    }

    /// Reads balances, nonces, token transfers and the fate of sent transactions from the node.
    public static func sync(wallet: String?, store: Store, node makeNode: NodeProvider) async throws
        -> EthereumSyncReport
    {
        let account = try store.ethereumAccount(named: wallet)
        let report = try await EthereumSync.sync(account: account, store: store, node: try makeNode())
        return EthereumSyncReport(account: account.name, sync: report)
    }

    // MARK: tokens

    /// Follows the token at `contract`: its symbol, name and decimals read from the contract.
    public static func addToken(_ contract: String, wallet: String?, store: Store, node makeNode: NodeProvider)
        async throws -> EthereumToken
    {
        let address = try EthereumInputs.address(contract, what: "the contract")
        let account = try store.ethereumAccount(named: wallet)
        let node = try makeNode()
        try await node.checkChain(account.chainID, account: account.name)
        let token = try await ERC20Read.metadata(of: address, node: node)
        try store.addEthereumToken(token, accountID: account.id ?? 0)
        return token
    }

    /// The tokens the account follows, with their balances as of the last sync.
    public static func tokens(wallet: String?, store: Store) throws(EthereumWalletError) -> [EthereumToken] {
        let account = try store.ethereumAccount(named: wallet)
        return try store.ethereumTokens(accountID: account.id ?? 0)
    }

    /// Stops following the token at `contract`; returns its address.
    public static func removeToken(_ contract: String, wallet: String?, store: Store) throws(EthereumWalletError)
        -> EthereumAddress
    {
        let address = try EthereumInputs.address(contract, what: "the contract")
        let account = try store.ethereumAccount(named: wallet)
        guard try store.removeEthereumToken(address, accountID: account.id ?? 0) else {
            throw .invalid("the account follows no token \(address)")
        }
        return address
    }
}

extension EthereumAccount {
    /// The address with `index`.
    ///
    /// - Throws: `EthereumWalletError.invalid` when the account has none.
    public func entry(index: Int) throws(EthereumWalletError) -> Entry {
        guard let entry = entries.first(where: { $0.index == index }) else {
            throw .invalid("the account has no address index \(index)")
        }
        return entry
    }
}
