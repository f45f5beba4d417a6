import ArgumentParser
import CLISupport
import Ethereum
import Watcher

/// `airlock-watcher eth balance`.
struct EthBalance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance",
        abstract: "Show ETH and token balances as of the last sync, exact to the last decimal.",
        discussion: """
            --json gives amounts as decimal strings of base units (wei, token units): {"account", "chain_id", \
            "block", "wei", "accounts": [{"index", "address", "wei", "nonce"}], "tokens": [{"contract", "symbol", \
            "decimals", "amount"}]}.

            Examples:
              airlock-watcher eth balance
              airlock-watcher --wallet main eth balance --json
            """)

    struct Output: Encodable {
        struct Entry: Encodable {
            let index: Int
            let address: String
            let wei: String
            let nonce: UInt64
        }
        struct Token: Encodable {
            let contract: String
            let symbol: String
            let decimals: Int
            let amount: String
        }
        let account: String
        let chainId: UInt64
        let block: UInt64?
        let wei: String
        let accounts: [Entry]
        let tokens: [Token]
    }

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let account = try context.account()
            let tokens = try context.store.ethereumTokens(accountID: account.id ?? 0)
            if global.json {
                try JSONOutput.print(
                    Output(
                        account: account.name, chainId: account.chainID, block: account.syncedBlock,
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
                        }))
            } else {
                print("\(account.totalBalance.etherString) ETH")
                for token in tokens {
                    print("\(EthereumSpend.decimalString(token.total, decimals: token.decimals)) \(token.symbol)")
                }
                if account.entries.count > 1 {
                    for entry in account.entries {
                        print("  \(entry.index)  \(entry.address)  \(entry.balance.etherString) ETH")
                    }
                }
                print(account.syncedBlock.map { "(synced to block \($0))" } ?? "(never synced)")
            }
        }
    }
}
