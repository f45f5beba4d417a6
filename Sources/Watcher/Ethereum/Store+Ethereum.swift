import BitcoinCrypto
import ChainCore
import Ethereum
import Foundation
import GRDB

extension Store {
    /// The Ethereum tables (docs/architecture.md section 10): accounts and their addresses with balances and nonces,
    /// tokens and token balances, the transactions the watcher built, and token transfers from `Transfer` logs.
    static func registerEthereum(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-ethereum") { db in
            try db.execute(
                sql: """
                    CREATE TABLE eth_account (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE,
                        chain_id TEXT NOT NULL,
                        xpub TEXT,
                        master_fingerprint INTEGER,
                        account_path TEXT,
                        synced_block INTEGER,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE eth_address (
                        account_id INTEGER NOT NULL REFERENCES eth_account(id) ON DELETE CASCADE,
                        idx INTEGER NOT NULL,
                        address TEXT NOT NULL,
                        balance TEXT NOT NULL DEFAULT '0',
                        nonce INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (account_id, idx),
                        UNIQUE (account_id, address)
                    );
                    CREATE TABLE eth_token (
                        account_id INTEGER NOT NULL REFERENCES eth_account(id) ON DELETE CASCADE,
                        contract TEXT NOT NULL,
                        symbol TEXT NOT NULL,
                        name TEXT NOT NULL,
                        decimals INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 77),
                        PRIMARY KEY (account_id, contract)
                    );
                    CREATE TABLE eth_token_balance (
                        account_id INTEGER NOT NULL,
                        contract TEXT NOT NULL,
                        address TEXT NOT NULL,
                        balance TEXT NOT NULL,
                        PRIMARY KEY (account_id, contract, address),
                        FOREIGN KEY (account_id, contract) REFERENCES eth_token(account_id, contract) ON DELETE CASCADE
                    );
                    CREATE TABLE eth_tx (
                        account_id INTEGER NOT NULL REFERENCES eth_account(id) ON DELETE CASCADE,
                        request_id TEXT NOT NULL,
                        status TEXT NOT NULL
                            CHECK (status IN ('requested', 'pending', 'mined', 'failed', 'replaced')),
                        hash TEXT,
                        from_address TEXT NOT NULL,
                        to_address TEXT NOT NULL,
                        value TEXT NOT NULL,
                        token TEXT,
                        token_amount TEXT,
                        nonce INTEGER NOT NULL,
                        gas_limit INTEGER NOT NULL,
                        max_fee TEXT NOT NULL,
                        priority_fee TEXT NOT NULL,
                        unsigned BLOB NOT NULL,
                        signed BLOB,
                        block INTEGER,
                        gas_used INTEGER,
                        effective_gas_price TEXT,
                        replaces TEXT,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (account_id, request_id)
                    );
                    CREATE TABLE eth_transfer (
                        account_id INTEGER NOT NULL REFERENCES eth_account(id) ON DELETE CASCADE,
                        tx_hash TEXT NOT NULL,
                        log_index INTEGER NOT NULL,
                        token TEXT NOT NULL,
                        from_address TEXT NOT NULL,
                        to_address TEXT NOT NULL,
                        amount TEXT NOT NULL,
                        block INTEGER NOT NULL,
                        PRIMARY KEY (account_id, tx_hash, log_index)
                    );
                    """)
        }
    }

    // MARK: Accounts

    /// Adds an account.
    ///
    /// - Throws: `EthereumWalletError.invalid` when the name is taken.
    @discardableResult
    public func addEthereumAccount(_ account: EthereumAccount) throws(EthereumWalletError) -> EthereumAccount {
        do {
            return try pool.write { db in try Self.insert(account, db: db) }
        } catch let error as EthereumWalletError {
            throw error
        } catch {
            throw .store(Self.map(error))
        }
    }

    static func insert(_ account: EthereumAccount, db: Database) throws -> EthereumAccount {
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM eth_account WHERE name = ?", arguments: [account.name]) ?? 0
            > 0
        {
            throw EthereumWalletError.invalid("an Ethereum account named '\(account.name)' exists already")
        }
        var xpub: String?
        var fingerprint: Int64?
        var path: String?
        if case .hdKey(let key, let master, let accountPath) = account.source {
            xpub = key
            fingerprint = Int64(master)
            path = accountPath
        }
        try db.execute(
            sql: """
                INSERT INTO eth_account (name, chain_id, xpub, master_fingerprint, account_path, synced_block, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                account.name, String(account.chainID), xpub, fingerprint, path,
                account.syncedBlock.map { Int64($0) }, Int(Date().timeIntervalSince1970),
            ])
        var stored = account
        stored.id = db.lastInsertedRowID
        for entry in account.entries {
            try db.execute(
                sql: "INSERT INTO eth_address (account_id, idx, address, balance, nonce) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    stored.id, entry.index, entry.address.checksummed, entry.balance.amount.description,
                    Int64(entry.nonce),
                ])
        }
        return stored
    }

    /// Every account, by name.
    public func ethereumAccounts() throws(EthereumWalletError) -> [EthereumAccount] {
        do {
            return try pool.read { db in try Self.fetchEthereumAccounts(db) }
        } catch let error as EthereumWalletError {
            throw error
        } catch {
            throw .store(Self.map(error))
        }
    }

    static func fetchEthereumAccounts(_ db: Database) throws -> [EthereumAccount] {
        var out: [EthereumAccount] = []
        for row in try Row.fetchAll(db, sql: "SELECT * FROM eth_account ORDER BY name") {
            let id: Int64 = row["id"]
            guard let chainID = UInt64(row["chain_id"] as String) else {
                throw EthereumWalletError.store(.corrupt("chain id of Ethereum account \(id)"))
            }
            let source: EthereumAccount.Source
            var entries: [EthereumAccount.Entry] = []
            for entry in try Row.fetchAll(
                db, sql: "SELECT * FROM eth_address WHERE account_id = ? ORDER BY idx", arguments: [id])
            {
                entries.append(
                    EthereumAccount.Entry(
                        index: entry["idx"], address: try parseAddress(entry["address"]),
                        balance: Wei(try parseUInt(entry["balance"])), nonce: UInt64(entry["nonce"] as Int64)))
            }
            if let xpub: String = row["xpub"] {
                source = .hdKey(
                    xpub: xpub, masterFingerprint: UInt32(truncatingIfNeeded: row["master_fingerprint"] as Int64),
                    accountPath: row["account_path"] ?? "m/44'/60'/0'")
            } else {
                guard let first = entries.first else {
                    throw EthereumWalletError.store(.corrupt("Ethereum account \(id) has no address"))
                }
                source = .address(first.address)
            }
            let synced: Int64? = row["synced_block"]
            out.append(
                EthereumAccount(
                    id: id, name: row["name"], chainID: chainID, source: source, entries: entries,
                    syncedBlock: synced.map { UInt64($0) }))
        }
        return out
    }

    static func parseAddress(_ text: String) throws -> EthereumAddress {
        do { return try EthereumAddress(string: text) } catch {
            throw EthereumWalletError.store(.corrupt("stored address \(text)"))
        }
    }

    static func parseUInt(_ text: String) throws -> UInt256 {
        do { return try UInt256(string: text) } catch {
            throw EthereumWalletError.store(.corrupt("stored amount \(text)"))
        }
    }

    /// The account named `name`, or the only one.
    public func ethereumAccount(named name: String?) throws(EthereumWalletError) -> EthereumAccount {
        let all = try ethereumAccounts()
        if let name {
            guard let found = all.first(where: { $0.name == name }) else {
                throw .accountNotFound(name: name, known: all.map(\.name))
            }
            return found
        }
        guard !all.isEmpty else { throw .noAccount }
        guard all.count == 1 else { throw .ambiguousAccount(all.map(\.name)) }
        return all[0]
    }

    /// Removes an Ethereum account and everything stored for it (addresses, tokens, requests, transfers).
    public func deleteEthereumAccount(id: Int64) throws(EthereumWalletError) {
        do {
            try write { db in try db.execute(sql: "DELETE FROM eth_account WHERE id = ?", arguments: [id]) }
        } catch {
            throw .store(error)
        }
    }

    // MARK: Tokens

    /// The tokens of an account, by symbol, with their balances.
    public func ethereumTokens(accountID: Int64) throws(EthereumWalletError) -> [EthereumToken] {
        do {
            return try pool.read { db in try Self.fetchTokens(db, accountID: accountID) }
        } catch let error as EthereumWalletError {
            throw error
        } catch {
            throw .store(Self.map(error))
        }
    }

    static func fetchTokens(_ db: Database, accountID: Int64) throws -> [EthereumToken] {
        var out: [EthereumToken] = []
        for row in try Row.fetchAll(
            db, sql: "SELECT * FROM eth_token WHERE account_id = ? ORDER BY symbol, contract", arguments: [accountID])
        {
            let contract = try parseAddress(row["contract"])
            var token = EthereumToken(
                contract: contract, symbol: row["symbol"], name: row["name"], decimals: row["decimals"])
            for balance in try Row.fetchAll(
                db, sql: "SELECT address, balance FROM eth_token_balance WHERE account_id = ? AND contract = ?",
                arguments: [accountID, contract.checksummed])
            {
                token.balances[try parseAddress(balance["address"])] = try parseUInt(balance["balance"])
            }
            out.append(token)
        }
        return out
    }

    /// Adds (or with the same contract, replaces the metadata of) a token.
    public func addEthereumToken(_ token: EthereumToken, accountID: Int64) throws(EthereumWalletError) {
        try ethWrite { db in
            try db.execute(
                sql: """
                    INSERT INTO eth_token (account_id, contract, symbol, name, decimals) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (account_id, contract) DO UPDATE SET symbol = excluded.symbol, name = excluded.name,
                    decimals = excluded.decimals
                    """,
                arguments: [accountID, token.contract.checksummed, token.symbol, token.name, token.decimals])
        }
    }

    /// Removes a token; false when the account had no such token.
    public func removeEthereumToken(_ contract: EthereumAddress, accountID: Int64) throws(EthereumWalletError) -> Bool {
        try ethWrite { db in
            try db.execute(
                sql: "DELETE FROM eth_token WHERE account_id = ? AND contract = ?",
                arguments: [accountID, contract.checksummed])
            return db.changesCount > 0
        }
    }

    func ethWrite<T>(_ body: (Database) throws -> T) throws(EthereumWalletError) -> T {
        do {
            return try pool.write { db in try body(db) }
        } catch let error as EthereumWalletError {
            throw error
        } catch {
            throw .store(Self.map(error))
        }
    }

    func ethRead<T>(_ body: (Database) throws -> T) throws(EthereumWalletError) -> T {
        do {
            return try pool.read { db in try body(db) }
        } catch let error as EthereumWalletError {
            throw error
        } catch {
            throw .store(Self.map(error))
        }
    }

    // MARK: Transactions

    /// Stores a new record.
    public func addEthereumTransaction(_ record: EthereumTxRecord, accountID: Int64) throws(EthereumWalletError) {
        try ethWrite { db in try Self.insert(record, accountID: accountID, db: db) }
    }

    static func insert(_ record: EthereumTxRecord, accountID: Int64, db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO eth_tx (account_id, request_id, status, hash, from_address, to_address, value, token,
                token_amount, nonce, gas_limit, max_fee, priority_fee, unsigned, signed, block, gas_used,
                effective_gas_price, replaces, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                accountID, record.requestID, record.status.rawValue, record.hash, record.from.checksummed,
                record.to.checksummed, record.value.amount.description, record.token?.checksummed,
                record.tokenAmount?.description, Int64(record.nonce), Int64(record.gasLimit),
                record.maxFeePerGas.description, record.maxPriorityFeePerGas.description, Data(record.unsigned),
                record.signed.map { Data($0) }, record.block.map { Int64($0) }, record.gasUsed.map { Int64($0) },
                record.effectiveGasPrice?.description, record.replaces, record.createdAt,
            ])
    }

    /// Every record of an account, newest first.
    public func ethereumTransactions(accountID: Int64) throws(EthereumWalletError) -> [EthereumTxRecord] {
        try ethRead { db in try Self.fetchTransactions(db, accountID: accountID) }
    }

    static func fetchTransactions(_ db: Database, accountID: Int64) throws -> [EthereumTxRecord] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM eth_tx WHERE account_id = ? ORDER BY created_at DESC, nonce DESC, rowid DESC",
            arguments: [accountID]
        ).map { row -> EthereumTxRecord in
            guard let status = EthereumTxRecord.Status(rawValue: row["status"]) else {
                throw EthereumWalletError.store(.corrupt("transaction status"))
            }
            let token: String? = row["token"]
            let tokenAmount: String? = row["token_amount"]
            let price: String? = row["effective_gas_price"]
            let block: Int64? = row["block"]
            let gasUsed: Int64? = row["gas_used"]
            let signed: Data? = row["signed"]
            return EthereumTxRecord(
                requestID: row["request_id"], status: status, hash: row["hash"],
                from: try parseAddress(row["from_address"]), to: try parseAddress(row["to_address"]),
                value: Wei(try parseUInt(row["value"])), token: try token.map(parseAddress),
                tokenAmount: try tokenAmount.map(parseUInt), nonce: UInt64(row["nonce"] as Int64),
                gasLimit: UInt64(row["gas_limit"] as Int64), maxFeePerGas: try parseUInt(row["max_fee"]),
                maxPriorityFeePerGas: try parseUInt(row["priority_fee"]), unsigned: Array(row["unsigned"] as Data),
                signed: signed.map { Array($0) }, block: block.map { UInt64($0) }, gasUsed: gasUsed.map { UInt64($0) },
                effectiveGasPrice: try price.map(parseUInt), replaces: row["replaces"], createdAt: row["created_at"])
        }
    }

    /// Marks a record as broadcast: pending with its hash and signed bytes, if it is still `requested`.
    ///
    /// - Throws: `EthereumWalletError.refused` when it was broadcast before (a second broadcast of the same signature).
    public func markBroadcast(requestID: String, accountID: Int64, hash: String, signed: [UInt8])
        throws(EthereumWalletError)
    {
        try ethWrite { db in
            try db.execute(
                sql: """
                    UPDATE eth_tx SET status = 'pending', hash = ?, signed = ?
                    WHERE account_id = ? AND request_id = ? AND status = 'requested'
                    """,
                arguments: [hash, Data(signed), accountID, requestID])
            guard db.changesCount == 1 else {
                throw EthereumWalletError.refused("request \(requestID) was broadcast already")
            }
        }
    }

    /// The token transfers of an account, newest first: (tx hash, token, from, to, amount, block).
    public func ethereumTransfers(accountID: Int64) throws(EthereumWalletError) -> [EthereumTransfer] {
        try ethRead { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM eth_transfer WHERE account_id = ? ORDER BY block DESC, log_index DESC",
                arguments: [accountID]
            ).map { row -> EthereumTransfer in
                EthereumTransfer(
                    txHash: row["tx_hash"], logIndex: UInt64(row["log_index"] as Int64),
                    token: try Self.parseAddress(row["token"]), from: try Self.parseAddress(row["from_address"]),
                    to: try Self.parseAddress(row["to_address"]), amount: try Self.parseUInt(row["amount"]),
                    block: UInt64(row["block"] as Int64))
            }
        }
    }
}

/// An ERC-20 `Transfer` log touching an account.
public struct EthereumTransfer: Sendable, Equatable {
    public var txHash: String
    public var logIndex: UInt64
    public var token: EthereumAddress
    public var from: EthereumAddress
    public var to: EthereumAddress
    public var amount: UInt256
    public var block: UInt64
}
