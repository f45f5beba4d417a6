import Codecs
import Ethereum
import Foundation
import GRDB

/// An Ethereum account in a watcher backup.
///
/// Its key or address, tokens and the transactions the watcher built
/// (requests awaiting a signature included). Balances, transfers and chain state come back with a sync.
public struct EthereumAccountBackup: Sendable, Equatable, Codable {
    public struct Token: Sendable, Equatable, Codable {
        public var contract: String
        public var symbol: String
        public var name: String
        public var decimals: Int
    }

    public struct Transaction: Sendable, Equatable, Codable {
        public var requestID: String
        public var status: String
        public var hash: String?
        public var from: String
        public var to: String
        public var value: String
        public var token: String?
        public var tokenAmount: String?
        public var nonce: UInt64
        public var gasLimit: UInt64
        public var maxFeePerGas: String
        public var maxPriorityFeePerGas: String
        public var unsigned: String
        public var signed: String?
        public var replaces: String?
        public var createdAt: Int
    }

    public var name: String
    public var chainID: String
    public var xpub: String?
    public var masterFingerprint: UInt32?
    public var accountPath: String?
    public var addresses: [String]
    public var tokens: [Token]
    public var transactions: [Transaction]
}

extension Store {
    func ethereumBackups() throws(StoreError) -> [EthereumAccountBackup] {
        do {
            return try pool.read { db in
                try Self.fetchEthereumAccounts(db).map { account -> EthereumAccountBackup in
                    let id = account.id ?? 0
                    var xpub: String?
                    var fingerprint: UInt32?
                    var path: String?
                    if case .hdKey(let key, let master, let accountPath) = account.source {
                        (xpub, fingerprint, path) = (key, master, accountPath)
                    }
                    return EthereumAccountBackup(
                        name: account.name, chainID: String(account.chainID), xpub: xpub,
                        masterFingerprint: fingerprint,
                        accountPath: path, addresses: account.entries.map(\.address.checksummed),
                        tokens: try Self.fetchTokens(db, accountID: id).map {
                            .init(
                                contract: $0.contract.checksummed, symbol: $0.symbol, name: $0.name,
                                decimals: $0.decimals)
                        },
                        transactions: try Self.fetchTransactions(db, accountID: id).map {
                            .init(
                                requestID: $0.requestID, status: $0.status.rawValue, hash: $0.hash,
                                from: $0.from.checksummed, to: $0.to.checksummed, value: $0.value.amount.description,
                                token: $0.token?.checksummed, tokenAmount: $0.tokenAmount?.description, nonce: $0.nonce,
                                gasLimit: $0.gasLimit, maxFeePerGas: $0.maxFeePerGas.description,
                                maxPriorityFeePerGas: $0.maxPriorityFeePerGas.description,
                                unsigned: Hex.encode($0.unsigned), signed: $0.signed.map { Hex.encode($0) },
                                replaces: $0.replaces, createdAt: $0.createdAt)
                        })
                }
            }
        } catch let error as EthereumWalletError {
            if case .store(let inner) = error { throw inner }
            throw .corrupt(error.description)
        } catch {
            throw Self.map(error)
        }
    }

    /// Checks the Ethereum part of a backup and turns it into rows to insert.
    static func parseEthereum(_ backups: [EthereumAccountBackup]) throws(BackupError) -> [(
        EthereumAccount, [EthereumToken], [EthereumTxRecord]
    )] {
        var out: [(EthereumAccount, [EthereumToken], [EthereumTxRecord])] = []
        for backup in backups {
            func fail(_ what: String) -> BackupError { .invalid("Ethereum account \(backup.name): \(what)") }
            guard let chainID = UInt64(backup.chainID) else { throw fail("chain id") }
            var addresses: [EthereumAddress] = []
            for text in backup.addresses {
                guard let address = try? EthereumAddress(string: text) else { throw fail("address \(text)") }
                addresses.append(address)
            }
            guard !addresses.isEmpty, addresses.count <= EthereumAccount.maxAddresses else { throw fail("addresses") }
            var account: EthereumAccount
            if let xpub = backup.xpub {
                guard let fingerprint = backup.masterFingerprint,
                    let derived = try? EthereumAccount.derive(
                        xpubText: xpub, count: addresses.count), derived == addresses
                else { throw fail("the addresses are not the account key's") }
                account = EthereumAccount(
                    id: nil, name: backup.name, chainID: chainID,
                    source: .hdKey(
                        xpub: xpub, masterFingerprint: fingerprint, accountPath: backup.accountPath ?? "m/44'/60'/0'"),
                    entries: [], syncedBlock: nil)
            } else {
                guard addresses.count == 1 else { throw fail("an address account has one address") }
                account = EthereumAccount(name: backup.name, chainID: chainID, address: addresses[0])
            }
            account.entries = addresses.enumerated().map {
                .init(index: $0.offset, address: $0.element, balance: Wei(.zero), nonce: 0)
            }
            var tokens: [EthereumToken] = []
            for token in backup.tokens {
                guard let contract = try? EthereumAddress(string: token.contract), (0...77).contains(token.decimals)
                else {
                    throw fail("token \(token.contract)")
                }
                tokens.append(
                    EthereumToken(contract: contract, symbol: token.symbol, name: token.name, decimals: token.decimals))
            }
            var records: [EthereumTxRecord] = []
            for tx in backup.transactions {
                guard let status = EthereumTxRecord.Status(rawValue: tx.status),
                    let from = try? EthereumAddress(string: tx.from), let to = try? EthereumAddress(string: tx.to),
                    let value = try? UInt256(string: tx.value), let maxFee = try? UInt256(string: tx.maxFeePerGas),
                    let tip = try? UInt256(string: tx.maxPriorityFeePerGas), let unsigned = Hex.decode(tx.unsigned),
                    (try? EthereumTransaction(unsignedSerialized: unsigned)) != nil
                else { throw fail("transaction \(tx.requestID)") }
                let token = try? tx.token.map { try EthereumAddress(string: $0) }
                let tokenAmount = try? tx.tokenAmount.map { try UInt256(string: $0) }
                records.append(
                    EthereumTxRecord(
                        requestID: tx.requestID, status: status, hash: tx.hash, from: from, to: to, value: Wei(value),
                        token: token ?? nil, tokenAmount: tokenAmount ?? nil, nonce: tx.nonce, gasLimit: tx.gasLimit,
                        maxFeePerGas: maxFee, maxPriorityFeePerGas: tip, unsigned: unsigned,
                        signed: tx.signed.flatMap { Hex.decode($0) }, block: nil, gasUsed: nil, effectiveGasPrice: nil,
                        replaces: tx.replaces, createdAt: tx.createdAt))
            }
            out.append((account, tokens, records))
        }
        return out
    }

    static func insertEthereum(_ parsed: [(EthereumAccount, [EthereumToken], [EthereumTxRecord])], db: Database) throws
    {
        for (account, tokens, records) in parsed {
            let stored = try insert(account, db: db)
            guard let id = stored.id else { continue }
            for token in tokens {
                try db.execute(
                    sql: "INSERT INTO eth_token (account_id, contract, symbol, name, decimals) VALUES (?, ?, ?, ?, ?)",
                    arguments: [id, token.contract.checksummed, token.symbol, token.name, token.decimals])
            }
            for record in records { try insert(record, accountID: id, db: db) }
        }
    }
}
