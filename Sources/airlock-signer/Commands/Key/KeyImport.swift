import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Ethereum
import Foundation
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer key import IN`: a WIF, hex key or keystore v3 file, sealed into the vault.
    struct KeyImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a private key (WIF, hex or keystore v3) into the vault, sealed with the seed.",
            discussion: """
                IN is a file or '-' (stdin) holding a WIF key (Bitcoin), 64 hex digits (with --chain), or a \
                keystore v3 JSON file (Ethereum; scrypt or pbkdf2, its password from --keystore-password-file or \
                asked). The key is sealed inside the vault's encrypted payload; `key list` and `info` show its \
                address, and an eth-sign-request naming that address is signed with it. A wrong keystore password \
                exits 3; a key already imported, 4.

                Examples:
                  airlock-signer key import UTC--2025-01-01--abcd.json --keystore-password-file ks.txt
                  airlock-signer key import - --chain eth --label cold < key.hex
                  airlock-signer key import wif.txt --label paper-wallet
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The key: a file holding WIF, hex or keystore v3 JSON, or '-' for stdin.") var input: String
        @Option(help: "btc or eth (needed for a hex key; a WIF is Bitcoin, a keystore Ethereum).") var chain: Chain?
        @Option(help: "Read the keystore's password from the first line of PATH; else it is asked for.")
        var keystorePasswordFile: String?
        @Option(help: "A label shown by `key list` (up to 255 bytes).") var label = ""

        func run() async throws {
            try await ErrorReporting.run {
                let candidate: KeyImportReader.Candidate
                do {
                    candidate = try KeyImportReader.read(
                        SecretInput.contents(ofFile: input), chain: chain.map { $0 == .eth ? .ethereum : .bitcoin },
                        label: label,
                        keystorePassword: {
                            try keystorePasswordFile.map { try Prompt.secret(fromFile: $0) }
                                ?? Prompt.secret("Keystore password: ")
                        })
                } catch KeyImportError.empty { throw CLIError(.invalidInput, "\(input) holds no key") }
                let unlocked = try options.unlock()
                let imported = try candidate.key(for: unlocked.network)
                try unlocked.importKey(imported)
                let address = imported.address(network: unlocked.network)
                if options.json {
                    try JSONOutput.print(
                        KeyJSON(
                            chain: imported.chain.name, address: address, path: nil, label: DisplayText.clean(label),
                            format: nil, secret: nil, keystore: nil, written: nil))
                } else {
                    print(address)
                    Diagnostics.print("imported the \(imported.chain.name) key of \(address) into \(options.vaultPath)")
                }
            }
        }
    }
}
