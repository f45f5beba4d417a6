import BitcoinCrypto
import ChainCore
import Codecs
import Ethereum
import Foundation
import GRDB

/// Brings an Ethereum account up to date from a node (docs/architecture.md section 10).
///
/// The node's chain id is
/// checked first, then balances and nonces, token balances (`balanceOf`), the `Transfer` logs from or to the
/// account's addresses since the last sync, and the fate of pending transactions. Everything is read first and
/// written in one database transaction, so a node that fails or lies midway changes nothing.
public enum EthereumSync {
    /// keccak256("Transfer(address,address,uint256)").
    public static let transferTopic = Keccak256.hash(Array("Transfer(address,address,uint256)".utf8))

    /// What a sync found.
    public struct Report: Sendable, Equatable {
        public var block: UInt64
        public var newTransfers: Int
        public var updatedTransactions: Int
    }

    /// Syncs `account`.
    ///
    /// - Throws: `EthereumWalletError.chain` (the node failed or is on another chain), `.store`.
    public static func sync(account: EthereumAccount, store: Store, node: any EthereumNode)
        async throws(EthereumWalletError) -> Report
    {
        guard let accountID = account.id else { throw .invalid("the account is not stored") }
        do {
            try await node.checkChain(account.chainID, account: account.name)
            let tip = try await node.blockNumber()
            let block = EthBlockTag.number(tip)
            var balances: [(EthereumAddress, Wei, UInt64)] = []
            for entry in account.entries {
                let balance = try await node.balance(of: entry.address, at: block)
                let nonce = try await node.transactionCount(of: entry.address, at: block)
                balances.append((entry.address, balance, nonce))
            }
            let tokens = try store.ethereumTokens(accountID: accountID)
            var tokenBalances: [(EthereumAddress, EthereumAddress, UInt256)] = []
            var calls: [EthCall] = []
            var keys: [(EthereumAddress, EthereumAddress)] = []
            for token in tokens {
                for entry in account.entries {
                    calls.append(
                        EthCall(to: token.contract, data: ERC20Read.balanceOf(entry.address)))
                    keys.append((token.contract, entry.address))
                }
            }
            let answers = try await node.calls(calls, at: block)
            guard answers.count == calls.count else {
                throw ChainError.protocolViolation("\(answers.count) answers to \(calls.count) balanceOf calls")
            }
            for (key, answer) in zip(keys, answers) {
                tokenBalances.append(
                    (key.0, key.1, try ERC20Read.uint(answer, server: node.displayName, field: "balanceOf")))
            }
            var transfers: [EthereumTransfer] = []
            let from = account.syncedBlock.map { $0 + 1 } ?? 0
            if !tokens.isEmpty, from <= tip {
                let ours = account.entries.map { [UInt8](repeating: 0, count: 12) + $0.address.bytes }
                let contracts = tokens.map(\.contract)
                var seen = Set<String>()
                for topics in [[[transferTopic], ours], [[transferTopic], nil, ours]] {
                    let filter = EthLogFilter(fromBlock: from, toBlock: tip, addresses: contracts, topics: topics)
                    for log in try await node.logs(filter) {
                        guard let transfer = try transferOf(log, server: node.displayName) else { continue }
                        if seen.insert("\(transfer.txHash):\(transfer.logIndex)").inserted {
                            transfers.append(transfer)
                        }
                    }
                }
            }
            // Pending transactions: a receipt settles them; a nonce beyond theirs without one means replaced.
            var updates: [(String, EthereumTxRecord.Status, EthReceipt?)] = []
            let records = try store.ethereumTransactions(accountID: accountID)
            for record in records where record.status == .pending {
                guard let hashText = record.hash, let hash = Hex.decode(hashText), hash.count == 32 else { continue }
                if let receipt = try await node.receipt(hash: hash) {
                    updates.append((record.requestID, receipt.succeeded ? .mined : .failed, receipt))
                } else if let nonce = balances.first(where: { $0.0 == record.from })?.2, nonce > record.nonce {
                    updates.append((record.requestID, .replaced, nil))
                }
            }
            let count = try store.ethWrite { db in
                for (address, balance, nonce) in balances {
                    try db.execute(
                        sql: "UPDATE eth_address SET balance = ?, nonce = ? WHERE account_id = ? AND address = ?",
                        arguments: [balance.amount.description, Int64(nonce), accountID, address.checksummed])
                }
                for (contract, address, balance) in tokenBalances {
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO eth_token_balance (account_id, contract, address, balance)
                            VALUES (?, ?, ?, ?)
                            """,
                        arguments: [accountID, contract.checksummed, address.checksummed, balance.description])
                }
                for transfer in transfers {
                    try db.execute(
                        sql: """
                            INSERT OR IGNORE INTO eth_transfer (account_id, tx_hash, log_index, token, from_address,
                            to_address, amount, block) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            accountID, transfer.txHash, Int64(transfer.logIndex), transfer.token.checksummed,
                            transfer.from.checksummed, transfer.to.checksummed, transfer.amount.description,
                            Int64(transfer.block),
                        ])
                }
                for (requestID, status, receipt) in updates {
                    try db.execute(
                        sql: """
                            UPDATE eth_tx SET status = ?, block = ?, gas_used = ?, effective_gas_price = ?
                            WHERE account_id = ? AND request_id = ?
                            """,
                        arguments: [
                            status.rawValue, receipt.map { Int64($0.blockNumber) }, receipt.map { Int64($0.gasUsed) },
                            receipt?.effectiveGasPrice.description, accountID, requestID,
                        ])
                    if receipt != nil, let record = records.first(where: { $0.requestID == requestID }) {
                        // Every other record of this sender and nonce lost the race.
                        try db.execute(
                            sql: """
                                UPDATE eth_tx SET status = 'replaced' WHERE account_id = ? AND from_address = ?
                                AND nonce = ? AND request_id != ? AND status IN ('requested', 'pending')
                                """,
                            arguments: [accountID, record.from.checksummed, Int64(record.nonce), requestID])
                    }
                }
                try db.execute(
                    sql: "UPDATE eth_account SET synced_block = ? WHERE id = ?", arguments: [Int64(tip), accountID])
                return updates.count
            }
            return Report(block: tip, newTransfers: transfers.count, updatedTransactions: count)
        } catch let error as EthereumWalletError {
            throw error
        } catch let error as ChainError {
            throw .chain(error)
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// The transfer a `Transfer(address indexed, address indexed, uint256)` log records; nil for a log of another
    /// shape (ERC-721's has a fourth topic and no data).
    ///
    /// - Throws: `ChainError.invalidField` for a topic word with bits above its address.
    static func transferOf(_ log: EthLog, server: String) throws(ChainError) -> EthereumTransfer? {
        guard log.topics.count == 3, log.topics[0] == transferTopic, log.data.count == 32 else { return nil }
        func address(_ word: [UInt8]) throws(ChainError) -> EthereumAddress {
            guard word.prefix(12).allSatisfy({ $0 == 0 }), let address = try? EthereumAddress(bytes: word.suffix(20))
            else { throw .invalidField(server: server, field: "Transfer topic", value: EthHex.data(word)) }
            return address
        }
        let amount: UInt256
        do { amount = try UInt256(bigEndian: log.data) } catch {
            throw .invalidField(server: server, field: "Transfer amount", value: EthHex.data(log.data))
        }
        return EthereumTransfer(
            txHash: EthHex.data(log.transactionHash), logIndex: log.logIndex, token: log.address,
            from: try address(log.topics[1]), to: try address(log.topics[2]), amount: amount, block: log.blockNumber)
    }
}
