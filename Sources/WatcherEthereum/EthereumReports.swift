import AirgapTransport
import Bitcoin
import ChainCore
import Ethereum
import Watcher

// The reports of `EthereumFlows`: typed values (amounts as `Wei` and token base units), their `--json` shape (keys
// spelled out in snake case, so any encoder gives the same document; amounts as decimal strings of base units), and
// the lines a person reads.

/// An `eth-sign-request` built by `send` or `bump`.
public struct EthereumRequestReport: Sendable {
    public enum Kind: Sendable {
        /// A payment; of `token` when it is one.
        case send(token: EthereumToken?)
        /// A replacement of a pending transaction.
        case bump
    }

    public var kind: Kind
    public var record: EthereumTxRecord
    public var request: UREthSignRequest
    /// The request as `ur:eth-sign-request/…` text.
    public var ur: String

    public init(built: EthereumSpend.Built, kind: Kind) throws {
        self.kind = kind
        record = built.record
        request = built.request
        ur = try URRegistryItem.ethSignRequest(built.request).ur().string
    }

    /// The one line that says what the request asks.
    public var summary: String {
        let r = record
        let fees =
            "max fee \(Wei(r.maxFeePerGas).gweiString) gwei, priority \(Wei(r.maxPriorityFeePerGas).gweiString) gwei"
        switch kind {
        case .bump: return "replacement request \(r.requestID) for nonce \(r.nonce): \(fees)"
        case .send(let token):
            let what =
                token.map {
                    "\(EthereumSpend.decimalString(r.tokenAmount ?? .zero, decimals: $0.decimals)) \($0.symbol)"
                }
                ?? "\(r.value.etherString) ETH"
            return
                "request \(r.requestID): \(what) from \(r.from) to \(r.to), nonce \(r.nonce), gas \(r.gasLimit), \(fees)"
        }
    }

    /// The `--json` object; `written` are the files the request was written to.
    public func json(written: [String]) -> JSON {
        let r = record
        return JSON(
            requestID: r.requestID, from: r.from.checksummed, to: r.to.checksummed, nonce: r.nonce,
            gasLimit: r.gasLimit, maxFeePerGas: r.maxFeePerGas.description,
            maxPriorityFeePerGas: r.maxPriorityFeePerGas.description, value: r.value.amount.description,
            token: r.token?.checksummed, tokenAmount: r.tokenAmount?.description, ur: ur, written: written)
    }

    public struct JSON: Encodable, Sendable {
        public let requestID: String
        public let from: String
        public let to: String
        public let nonce: UInt64
        public let gasLimit: UInt64
        public let maxFeePerGas: String
        public let maxPriorityFeePerGas: String
        public let value: String
        public let token: String?
        public let tokenAmount: String?
        public let ur: String
        public let written: [String]

        enum CodingKeys: String, CodingKey {
            case requestID = "request_id"
            case from, to, nonce
            case gasLimit = "gas_limit"
            case maxFeePerGas = "max_fee_per_gas"
            case maxPriorityFeePerGas = "max_priority_fee_per_gas"
            case value, token
            case tokenAmount = "token_amount"
            case ur
            case written
        }
    }
}

/// A signed transaction broadcast, and its fate when waited for.
public struct EthereumBroadcastReport: Sendable {
    /// The transaction hash, `0x…`.
    public var hash: String
    /// The transaction as stored: pending, or mined or failed after a wait.
    public var record: EthereumTxRecord

    /// Whether it was mined and reverted (its gas spent).
    public var failed: Bool { record.status == .failed }

    public var lines: [String] {
        let fee = record.feePaid?.etherString ?? "?"
        let state =
            switch record.status {
            case .mined: "mined in block \(record.block ?? 0), fee \(fee) ETH"
            case .failed:
                "FAILED (reverted) in block \(record.block ?? 0); gas used \(record.gasUsed ?? 0), fee \(fee) ETH spent"
            default: record.status.rawValue
            }
        return [hash, state]
    }

    public var json: JSON {
        JSON(
            requestID: record.requestID, hash: hash, status: record.status.rawValue, block: record.block,
            gasUsed: record.gasUsed, feeWei: record.feePaid?.amount.description)
    }

    public struct JSON: Encodable, Sendable {
        public let requestID: String
        public let hash: String
        public let status: String
        public let block: UInt64?
        public let gasUsed: UInt64?
        public let feeWei: String?

        enum CodingKeys: String, CodingKey {
            case requestID = "request_id"
            case hash, status, block
            case gasUsed = "gas_used"
            case feeWei = "fee_wei"
        }
    }
}

/// An account imported.
public struct EthereumImportReport: Sendable {
    public var account: EthereumAccount
    /// Said when the chain id given differs from the node's.
    public var warning: String?

    public var kind: String {
        if case .hdKey = account.source { return "hdkey" }
        return "address"
    }

    public var lines: [String] {
        ["imported Ethereum account '\(account.name)' on chain \(account.chainID)"]
            + account.entries.map { "  \($0.index)  \($0.address)" }
    }

    public var json: JSON {
        JSON(
            name: account.name, chainID: account.chainID, kind: kind,
            addresses: account.entries.map { .init(index: $0.index, address: $0.address.checksummed) })
    }

    public struct JSON: Encodable, Sendable {
        public struct Entry: Encodable, Sendable {
            public let index: Int
            public let address: String
        }
        public let name: String
        public let chainID: UInt64
        public let kind: String
        public let addresses: [Entry]

        enum CodingKeys: String, CodingKey {
            case name
            case chainID = "chain_id"
            case kind, addresses
        }
    }
}

/// The account's transactions and token transfers.
public struct EthereumHistoryReport: Sendable {
    public var transactions: [EthereumTxRecord]
    public var transfers: [EthereumTransfer]
    public var tokens: [EthereumToken]

    public var isEmpty: Bool { transactions.isEmpty && transfers.isEmpty }

    func token(_ contract: EthereumAddress) -> EthereumToken? { tokens.first { $0.contract == contract } }

    /// A token amount in its units with its symbol, or base units with the contract for one not followed.
    public func amount(_ value: UInt256?, of contract: EthereumAddress) -> String {
        guard let value else { return "? of \(contract)" }
        return token(contract)?.format(value) ?? "\(value) base units of \(contract) (a token not followed)"
    }

    public var lines: [String] {
        transactions.map { record in
            let what = record.token.map { amount(record.tokenAmount, of: $0) } ?? "\(record.value.etherString) ETH"
            return "\(record.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) nonce \(record.nonce) "
                + "\(what) to \(record.to) \(record.hash ?? "(request \(record.requestID))")"
        }
            + transfers.map {
                "transfer  block \($0.block) \(amount($0.amount, of: $0.token)) \($0.from) -> \($0.to)"
            }
    }

    public var json: JSON {
        JSON(
            transactions: transactions.map {
                .init(
                    requestID: $0.requestID, status: $0.status.rawValue, hash: $0.hash, from: $0.from.checksummed,
                    to: $0.to.checksummed, value: $0.value.amount.description, token: $0.token?.checksummed,
                    tokenSymbol: $0.token.flatMap { token($0).map { DisplayText.clean($0.symbol) } },
                    tokenAmount: $0.tokenAmount?.description, nonce: $0.nonce, block: $0.block, gasUsed: $0.gasUsed,
                    feeWei: $0.feePaid?.amount.description)
            },
            transfers: transfers.map {
                .init(
                    hash: $0.txHash, token: $0.token.checksummed,
                    symbol: token($0.token).map { DisplayText.clean($0.symbol) },
                    from: $0.from.checksummed, to: $0.to.checksummed, amount: $0.amount.description, block: $0.block)
            })
    }

    public struct JSON: Encodable, Sendable {
        public struct Transaction: Encodable, Sendable {
            public let requestID: String
            public let status: String
            public let hash: String?
            public let from: String
            public let to: String
            public let value: String
            public let token: String?
            /// null (not absent) for a token not followed.
            public let tokenSymbol: String?
            public let tokenAmount: String?
            public let nonce: UInt64
            public let block: UInt64?
            public let gasUsed: UInt64?
            public let feeWei: String?

            enum CodingKeys: String, CodingKey {
                case requestID = "request_id"
                case status, hash, from, to, value, token
                case tokenSymbol = "token_symbol"
                case tokenAmount = "token_amount"
                case nonce, block
                case gasUsed = "gas_used"
                case feeWei = "fee_wei"
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(requestID, forKey: .requestID)
                try c.encode(status, forKey: .status)
                try c.encodeIfPresent(hash, forKey: .hash)
                try c.encode(from, forKey: .from)
                try c.encode(to, forKey: .to)
                try c.encode(value, forKey: .value)
                try c.encodeIfPresent(token, forKey: .token)
                try c.encode(tokenSymbol, forKey: .tokenSymbol)
                try c.encodeIfPresent(tokenAmount, forKey: .tokenAmount)
                try c.encode(nonce, forKey: .nonce)
                try c.encodeIfPresent(block, forKey: .block)
                try c.encodeIfPresent(gasUsed, forKey: .gasUsed)
                try c.encodeIfPresent(feeWei, forKey: .feeWei)
            }
        }
        public struct Transfer: Encodable, Sendable {
            public let hash: String
            public let token: String
            /// null for a token not followed.
            public let symbol: String?
            public let from: String
            public let to: String
            public let amount: String
            public let block: UInt64

            enum CodingKeys: String, CodingKey { case hash, token, symbol, from, to, amount, block }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(hash, forKey: .hash)
                try c.encode(token, forKey: .token)
                try c.encode(symbol, forKey: .symbol)
                try c.encode(from, forKey: .from)
                try c.encode(to, forKey: .to)
                try c.encode(amount, forKey: .amount)
                try c.encode(block, forKey: .block)
            }
        }
        public let transactions: [Transaction]
        public let transfers: [Transfer]
    }
}

/// ETH and token balances as of the last sync.
public struct EthereumBalanceReport: Sendable {
    public var account: EthereumAccount
    public var tokens: [EthereumToken]

    public var lines: [String] {
        var lines = ["\(account.totalBalance.etherString) ETH"]
        lines += tokens.map { "\(EthereumSpend.decimalString($0.total, decimals: $0.decimals)) \($0.symbol)" }
        if account.entries.count > 1 {
            lines += account.entries.map { "  \($0.index)  \($0.address)  \($0.balance.etherString) ETH" }
        }
        return lines + [account.syncedBlock.map { "(synced to block \($0))" } ?? "(never synced)"]
    }

    public var json: JSON {
        JSON(
            account: account.name, chainID: account.chainID, block: account.syncedBlock,
            wei: account.totalBalance.amount.description,
            accounts: account.entries.map {
                .init(
                    index: $0.index, address: $0.address.checksummed, wei: $0.balance.amount.description,
                    nonce: $0.nonce)
            },
            tokens: tokens.map {
                .init(
                    contract: $0.contract.checksummed, symbol: $0.symbol, decimals: $0.decimals,
                    amount: $0.total.description)
            })
    }

    public struct JSON: Encodable, Sendable {
        public struct Entry: Encodable, Sendable {
            public let index: Int
            public let address: String
            public let wei: String
            public let nonce: UInt64
        }
        public struct Token: Encodable, Sendable {
            public let contract: String
            public let symbol: String
            public let decimals: Int
            public let amount: String
        }
        public let account: String
        public let chainID: UInt64
        public let block: UInt64?
        public let wei: String
        public let accounts: [Entry]
        public let tokens: [Token]

        enum CodingKeys: String, CodingKey {
            case account
            case chainID = "chain_id"
            case block, wei, accounts, tokens
        }
    }
}

/// An address to be paid at, with its EIP-681 URI.
public struct EthereumReceiveReport: Sendable {
    public var entry: EthereumAccount.Entry
    public var uri: String

    /// The `--json` object; `qr` is the PNG the URI was written to.
    public func json(qr: String?) -> JSON {
        JSON(address: entry.address.checksummed, index: entry.index, uri: uri, qr: qr)
    }

    public struct JSON: Encodable, Sendable {
        public let address: String
        public let index: Int
        public let uri: String
        public let qr: String?
    }
}

/// What a sync read.
public struct EthereumSyncReport: Sendable {
    public var account: String
    public var sync: EthereumSync.Report

    public var line: String {
        "synced '\(account)' to block \(sync.block): \(sync.newTransfers) new token transfers, "
            + "\(sync.updatedTransactions) transactions settled"
    }

    public var json: JSON {
        JSON(
            account: account, block: sync.block, newTransfers: sync.newTransfers,
            updatedTransactions: sync.updatedTransactions)
    }

    public struct JSON: Encodable, Sendable {
        public let account: String
        public let block: UInt64
        public let newTransfers: Int
        public let updatedTransactions: Int

        enum CodingKeys: String, CodingKey {
            case account, block
            case newTransfers = "new_transfers"
            case updatedTransactions = "updated_transactions"
        }
    }
}

extension EthereumToken {
    /// A followed token in `token add` and `token list` `--json`.
    public var json: TokenJSON {
        TokenJSON(
            contract: contract.checksummed, symbol: symbol, name: name, decimals: decimals, balance: total.description)
    }

    /// `token list`'s line.
    public var listLine: String {
        "\(symbol)  \(EthereumSpend.decimalString(total, decimals: decimals))  \(contract)  \(name)"
    }

    public struct TokenJSON: Encodable, Sendable {
        public let contract: String
        public let symbol: String
        public let name: String
        public let decimals: Int
        public let balance: String
    }
}
