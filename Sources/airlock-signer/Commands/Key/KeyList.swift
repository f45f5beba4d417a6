import ArgumentParser
import Bitcoin
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer key list`: the imported keys, after the password.
    struct KeyList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the keys imported into the vault: chain, address, label (no secrets).",
            discussion: """
                Examples:
                  airlock-signer key list
                  airlock-signer key list --json --password-file pw.txt
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                let keys = unlocked.importedKeys.map {
                    KeyJSON(
                        chain: $0.chain.name, address: $0.address(network: unlocked.network), path: nil,
                        label: DisplayText.clean($0.label), format: nil, secret: nil, keystore: nil, written: nil)
                }
                if options.json {
                    try JSONOutput.print(KeyListJSON(keys: keys))
                } else if keys.isEmpty {
                    print("No imported keys.")
                } else {
                    for key in keys {
                        let label = key.label ?? ""
                        print("\(key.chain)  \(key.address)" + (label.isEmpty ? "" : "  \(label)"))
                    }
                }
            }
        }
    }
}
