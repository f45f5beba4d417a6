import ArgumentParser
import CLISupport
import Signer

extension AirlockSigner {
    /// `airlock-signer multisig list`.
    struct MultisigList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the registered multisig wallets (no password needed).",
            discussion: """
                Examples:
                  airlock-signer multisig list
                  airlock-signer multisig list --json
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                let wallets = try Vault(path: options.vaultPath).readHeader().multisigWallets
                if options.json {
                    try JSONOutput.print(wallets.map(MultisigJSON.init))
                } else if wallets.isEmpty {
                    print("No multisig wallets registered.")
                } else {
                    for wallet in wallets {
                        print("\(wallet.name): \(wallet.threshold) of \(wallet.keyCount), \(wallet.scriptType)")
                        print("  \(wallet.descriptorText)")
                    }
                }
            }
        }
    }
}
