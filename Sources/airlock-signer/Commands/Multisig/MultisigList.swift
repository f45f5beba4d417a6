import ArgumentParser
import Bitcoin
import CLISupport
import Signer

extension AirlockSigner {
    /// `airlock-signer multisig list`.
    struct MultisigList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the registered multisig wallets (after the password: only what the vault authenticates).",
            discussion: """
                Examples:
                  airlock-signer multisig list
                  airlock-signer multisig list --json
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                // The header is authenticated by the vault key: a file edited beside the vault shows nothing.
                let wallets = try options.unlock().header.multisigWallets
                if options.json {
                    try JSONOutput.print(wallets.map(MultisigWalletReport.init))
                } else if wallets.isEmpty {
                    print("No multisig wallets registered.")
                } else {
                    for wallet in wallets {
                        print(
                            "\(DisplayText.clean(wallet.name)): \(DisplayText.clean(wallet.summary))"
                        )
                        print("  \(DisplayText.clean(wallet.descriptorText))")
                    }
                    if wallets.contains(where: { DisplayText.hasHiddenCharacters($0.name) }) {
                        Diagnostics.print("!!! " + DisplayText.hiddenCharactersWarning)
                    }
                }
            }
        }
    }
}
