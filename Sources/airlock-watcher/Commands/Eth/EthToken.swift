import ArgumentParser
import CLISupport
import Ethereum
import Watcher

/// `airlock-watcher eth token add|list|remove`.
struct EthToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "The ERC-20 tokens the account follows.",
        discussion: """
            Examples:
              airlock-watcher eth token add 0xF2E2…395b
              airlock-watcher eth token list --json
              airlock-watcher eth token remove 0xF2E2…395b
            """,
        subcommands: [Add.self, List.self, Remove.self])

    struct Entry: Encodable {
        let contract: String
        let symbol: String
        let name: String
        let decimals: Int
        let balance: String
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Follow a token: its symbol, name and decimals are read from the contract.",
            discussion: """
                Examples:
                  airlock-watcher eth token add 0xF2E2…395b
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The token contract.") var contract: String

        func run() async throws {
            try await ErrorReporting.run {
                let address = try parseAddressArgument(contract, what: "the contract")
                let context = try EthContext(global)
                let account = try context.account()
                let node = try context.node()
                try await node.checkChain(account.chainID, account: account.name)
                let token = try await ERC20Read.metadata(of: address, node: node)
                try context.store.addEthereumToken(token, accountID: account.id ?? 0)
                if global.json {
                    try JSONOutput.print(
                        Entry(
                            contract: token.contract.checksummed, symbol: token.symbol, name: token.name,
                            decimals: token.decimals, balance: "0"))
                } else {
                    print("following \(token.symbol) (\(token.name), \(token.decimals) decimals) at \(token.contract)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the followed tokens with their balances as of the last sync.",
            discussion: """
                Examples:
                  airlock-watcher eth token list --json
                """)
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await ErrorReporting.run {
                let context = try EthContext(global)
                let account = try context.account()
                let tokens = try context.store.ethereumTokens(accountID: account.id ?? 0)
                if global.json {
                    try JSONOutput.print(
                        tokens.map {
                            Entry(
                                contract: $0.contract.checksummed, symbol: $0.symbol, name: $0.name,
                                decimals: $0.decimals,
                                balance: $0.total.description)
                        })
                } else {
                    if tokens.isEmpty { Diagnostics.print("no tokens: airlock-watcher eth token add CONTRACT") }
                    for token in tokens {
                        print(
                            "\(token.symbol)  \(EthereumSpend.decimalString(token.total, decimals: token.decimals))  "
                                + "\(token.contract)  \(token.name)")
                    }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Stop following a token.",
            discussion: """
                Examples:
                  airlock-watcher eth token remove 0xF2E2…395b
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The token contract.") var contract: String

        func run() async throws {
            try await ErrorReporting.run {
                let address = try parseAddressArgument(contract, what: "the contract")
                let context = try EthContext(global)
                let account = try context.account()
                guard try context.store.removeEthereumToken(address, accountID: account.id ?? 0) else {
                    throw CLIError(.invalidInput, "the account follows no token \(address)")
                }
                if global.json {
                    try JSONOutput.print(["removed": address.checksummed])
                } else {
                    print("removed \(address)")
                }
            }
        }
    }
}
