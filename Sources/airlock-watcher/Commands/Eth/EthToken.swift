import ArgumentParser
import CLISupport
import Ethereum
import Watcher
import WatcherEthereum

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
                let context = try EthContext(global)
                let token = try await EthereumFlows.addToken(
                    contract, wallet: global.wallet, store: context.store, node: context.node)
                if global.json { return try JSONOutput.print(token.json) }
                print("following \(token.symbol) (\(token.name), \(token.decimals) decimals) at \(token.contract)")
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
                let tokens = try EthereumFlows.tokens(wallet: global.wallet, store: try EthContext(global).store)
                if global.json { return try JSONOutput.print(tokens.map(\.json)) }
                if tokens.isEmpty { Diagnostics.print("no tokens: airlock-watcher eth token add CONTRACT") }
                printLines(tokens.map(\.listLine))
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
                let store = try EthContext(global).store
                let address = try EthereumFlows.removeToken(contract, wallet: global.wallet, store: store)
                if global.json { return try JSONOutput.print(["removed": address.checksummed]) }
                print("removed \(address)")
            }
        }
    }
}
