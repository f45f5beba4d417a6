import ArgumentParser
import Bitcoin
import CLISupport
import Ethereum
import Foundation
import Watcher

/// `airlock-watcher eth history`.
struct EthHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract:
            "The transactions the watcher built (requested, pending, mined, failed, replaced) and token transfers.",
        discussion: """
            Examples:
              airlock-watcher eth history
              airlock-watcher eth history --json
            """)

    struct Output: Encodable {
        struct Transaction: Encodable {
            let requestId: String
            let status: String
            let hash: String?
            let from: String
            let to: String
            let value: String
            let token: String?
            @NullEncoded var tokenSymbol: String?
            let tokenAmount: String?
            let nonce: UInt64
            let block: UInt64?
            let gasUsed: UInt64?
            let feeWei: String?
        }
        struct Transfer: Encodable {
            let hash: String
            let token: String
            @NullEncoded var symbol: String?
            let from: String
            let to: String
            let amount: String
            let block: UInt64
        }
        let transactions: [Transaction]
        let transfers: [Transfer]
    }

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let account = try context.account()
            let records = try context.store.ethereumTransactions(accountID: account.id ?? 0)
            let transfers = try context.store.ethereumTransfers(accountID: account.id ?? 0)
            let tokens = Dictionary(
                try context.store.ethereumTokens(accountID: account.id ?? 0).map { ($0.contract, $0) },
                uniquingKeysWith: { first, _ in first })
            /// A token amount in its units with its symbol, or base units with the contract for one not followed.
            func amount(_ value: UInt256?, of contract: EthereumAddress) -> String {
                guard let value else { return "? of \(contract)" }
                return tokens[contract]?.format(value) ?? "\(value) base units of \(contract) (a token not followed)"
            }
            if global.json {
                try JSONOutput.print(
                    Output(
                        transactions: records.map {
                            .init(
                                requestId: $0.requestID, status: $0.status.rawValue, hash: $0.hash,
                                from: $0.from.checksummed, to: $0.to.checksummed, value: $0.value.amount.description,
                                token: $0.token?.checksummed,
                                tokenSymbol: $0.token.flatMap { tokens[$0].map { DisplayText.clean($0.symbol) } },
                                tokenAmount: $0.tokenAmount?.description, nonce: $0.nonce,
                                block: $0.block, gasUsed: $0.gasUsed, feeWei: $0.feePaid?.amount.description)
                        },
                        transfers: transfers.map {
                            .init(
                                hash: $0.txHash, token: $0.token.checksummed,
                                symbol: tokens[$0.token].map { DisplayText.clean($0.symbol) },
                                from: $0.from.checksummed,
                                to: $0.to.checksummed, amount: $0.amount.description, block: $0.block)
                        }))
            } else {
                if records.isEmpty, transfers.isEmpty { Diagnostics.print("no Ethereum transactions yet") }
                for record in records {
                    let what =
                        record.token.map { amount(record.tokenAmount, of: $0) }
                        ?? "\(record.value.etherString) ETH"
                    print(
                        "\(record.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) nonce \(record.nonce) "
                            + "\(what) to \(record.to) \(record.hash ?? "(request \(record.requestID))")")
                }
                for transfer in transfers {
                    print(
                        "transfer  block \(transfer.block) \(amount(transfer.amount, of: transfer.token)) "
                            + "\(transfer.from) -> \(transfer.to)"
                    )
                }
            }
        }
    }
}
