import ArgumentParser
import CLISupport
import Ethereum
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer token add|list|remove`: the ERC-20 tokens the review shows in token units (DESIGN section 11).
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list or remove the ERC-20 tokens whose amounts the review shows in token units.",
            discussion: """
                The signer knows 20 widely used mainnet tokens (the Uniswap default token list; `token list` shows \
                them). Others are shown in base units with a warning until added here. An added token is kept in \
                the vault's authenticated header: a changed file fails to open.

                Examples:
                  airlock-signer token add 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 --chain-id 1 --symbol USDC --decimals 6
                  airlock-signer token list --json
                  airlock-signer token remove 0x5FbDB2315678afecb367f032d93F642f64180aa3
                """,
            subcommands: [TokenAdd.self, TokenList.self, TokenRemove.self])
    }

    struct TokenAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a token: its contract address, chain id, symbol and decimals.",
            discussion: """
                The token is shown first (on stderr); then it asks, --yes answers. Without --yes and without a \
                terminal to ask on, nothing is stored (exit 4). A token already added at that address on that \
                chain is refused (exit 4); a malformed address, symbol or decimals exits 1.

                Examples:
                  airlock-signer token add 0x5FbDB2315678afecb367f032d93F642f64180aa3 --chain-id 31337 --symbol ATT --decimals 18
                  airlock-signer token add 0x5FbDB2315678afecb367f032d93F642f64180aa3 --chain-id 1 --symbol ATT --decimals 6 --yes
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The token's contract address (0x…, EIP-55 checked when mixed case).") var address: String
        @Option(help: "The chain id (1 for Ethereum mainnet).") var chainId: UInt64
        @Option(help: "The symbol to show (1-16 letters, digits or . - _ $ +).") var symbol: String
        @Option(help: "The token's decimals (0-36).") var decimals: Int
        @Flag(help: "Add without asking (the token is still shown).") var yes = false

        func run() async throws {
            try await ErrorReporting.run {
                let token: EthereumToken
                do {
                    token = try EthereumToken(chainID: chainId, address: address, symbol: symbol, decimals: decimals)
                } catch { throw CLIError(.usage, "\(error)") }
                let unlocked = try options.unlock()
                try ReviewGate.run(
                    review: token.additionReview, json: options.json, yes: yes, question: "Add this token?",
                    what: "added",
                    aftermath: "; nothing stored")
                try unlocked.addToken(token)
                if options.json {
                    try JSONOutput.print(TokenJSON(token, builtIn: false))
                } else {
                    print("Added \(token.symbol) (\(token.address.checksummed) on chain \(token.chainID))")
                }
            }
        }
    }

    struct TokenList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the added tokens and the built-in ones.",
            discussion: """
                Examples:
                  airlock-signer token list
                  airlock-signer token list --json
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                let all =
                    unlocked.tokens.map { TokenJSON($0, builtIn: false) }
                    + EthereumToken.builtIn.map { TokenJSON($0, builtIn: true) }
                if options.json {
                    try JSONOutput.print(all)
                } else {
                    for token in all {
                        print(
                            "\(token.symbol)\t\(token.address)\tchain \(token.chainID)\t\(token.decimals) decimals"
                                + (token.builtIn ? "\tbuilt-in" : "\tadded"))
                    }
                }
            }
        }
    }

    struct TokenRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an added token (built-in ones stay).",
            discussion: """
                Without --chain-id the token is removed on every chain it was added for. A token that was not \
                added exits 2.

                Examples:
                  airlock-signer token remove 0x5FbDB2315678afecb367f032d93F642f64180aa3
                  airlock-signer token remove 0x5FbDB2315678afecb367f032d93F642f64180aa3 --chain-id 1
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The token's contract address.") var address: String
        @Option(help: "Only on this chain.") var chainId: UInt64?

        func run() async throws {
            try await ErrorReporting.run {
                let parsed: EthereumAddress
                do { parsed = try EthereumAddress(string: address) } catch {
                    throw CLIError(.usage, "not an Ethereum address: \(error)")
                }
                let unlocked = try options.unlock()
                let removed = try unlocked.removeToken(address: parsed, chainID: chainId)
                if options.json {
                    try JSONOutput.print(removed.map { TokenJSON($0, builtIn: false) })
                } else {
                    for token in removed { print("Removed \(token.symbol) (\(token.address.checksummed))") }
                }
            }
        }
    }
}
