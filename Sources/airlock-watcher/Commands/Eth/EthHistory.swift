import ArgumentParser
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
            let tokenAmount: String?
            let nonce: UInt64
            let block: UInt64?
            let gasUsed: UInt64?
            let feeWei: String?
        }
        struct Transfer: Encodable {
            let hash: String
            let token: String
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
            if global.json {
                try JSONOutput.print(
                    Output(
                        transactions: records.map {
                            .init(
                                requestId: $0.requestID, status: $0.status.rawValue, hash: $0.hash,
                                from: $0.from.checksummed, to: $0.to.checksummed, value: $0.value.amount.description,
                                token: $0.token?.checksummed, tokenAmount: $0.tokenAmount?.description, nonce: $0.nonce,
                                block: $0.block, gasUsed: $0.gasUsed, feeWei: $0.feePaid?.amount.description)
                        },
                        transfers: transfers.map {
                            .init(
                                hash: $0.txHash, token: $0.token.checksummed, from: $0.from.checksummed,
                                to: $0.to.checksummed, amount: $0.amount.description, block: $0.block)
                        }))
            } else {
                if records.isEmpty, transfers.isEmpty { Diagnostics.print("no Ethereum transactions yet") }
                for record in records {
                    let what =
                        record.token.map { "\(record.tokenAmount?.description ?? "?") units of \($0)" }
                        ?? "\(record.value.etherString) ETH"
                    print(
                        "\(record.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) nonce \(record.nonce) "
                            + "\(what) to \(record.to) \(record.hash ?? "(request \(record.requestID))")")
                }
                for transfer in transfers {
                    print(
                        "transfer  block \(transfer.block) \(transfer.amount) of \(transfer.token) \(transfer.from) -> \(transfer.to)"
                    )
                }
            }
        }
    }
}
