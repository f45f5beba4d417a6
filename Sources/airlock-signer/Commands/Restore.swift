import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer restore`: a vault from an existing BIP39 mnemonic.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the vault from an existing BIP39 mnemonic.",
            discussion: """
                The words come from --mnemonic-file (whitespace or newlines between words) or are typed on the \
                terminal without echo. A word that is not in the BIP39 list gets the nearest valid words as a hint.

                Examples:
                  airlock-signer restore --network test
                  airlock-signer restore --mnemonic-file words.txt --password-file pw.txt --kdf-memory 64
                """)

        @OptionGroup var options: VaultOptions
        @Option(help: "Read the mnemonic from PATH ('-' is stdin).") var mnemonicFile: String?
        @Option(help: "Network: main, test, signet or regtest.") var network: String = "main"
        @Flag(help: "Use a BIP39 passphrase (asked for twice, or --passphrase-file).") var passphrase = false
        @Flag(help: "Seal the BIP39 passphrase in the vault.") var storePassphrase = false
        @Flag(help: "Replace an existing vault.") var force = false
        @Option(help: "Argon2id memory in MiB (at least 64).") var kdfMemory: Int = 256

        func validate() throws {
            guard Network(name: network) != nil else { throw ValidationError("unknown network '\(network)'") }
            guard kdfMemory >= 64, kdfMemory <= 4096 else { throw ValidationError("--kdf-memory must be 64...4096") }
            if mnemonicFile == "-", options.passwordFile == "-" {
                throw ValidationError("the mnemonic and the password cannot both come from stdin")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let vault = Vault(path: options.vaultPath)
                if vault.exists, !force { throw VaultError.alreadyExists(path: options.vaultPath) }
                try AirGapGuard.requireOffline(allowNetwork: options.allowNetwork)
                let phrase =
                    try mnemonicFile.map { try SecretInput.contents(ofFile: $0) }
                    ?? Prompt.secret("Mnemonic words (separated by spaces): ")
                let mnemonic: Mnemonic
                do throws(MnemonicError) { mnemonic = try Mnemonic(phrase: phrase) } catch {
                    throw CLIError(.invalidInput, Self.explain(error))
                }
                let password = try SecretInput.newSecret(
                    file: options.passwordFile, prompt: "New vault password: ", what: "password")
                var bip39Passphrase: SecretBytes?
                if passphrase || options.passphraseFile != nil {
                    bip39Passphrase = try SecretInput.newSecret(
                        file: options.passphraseFile, prompt: "BIP39 passphrase: ", what: "passphrase")
                }
                let header = try vault.create(
                    mnemonic: mnemonic, passphrase: bip39Passphrase, storePassphrase: storePassphrase,
                    network: Network(name: network) ?? .main, password: password,
                    kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: 3), overwrite: force)
                if options.json {
                    try JSONOutput.print(
                        RestoreJSON(
                            vault: options.vaultPath, network: header.network.rawValue,
                            masterFingerprint: header.masterFingerprint.hexString, words: mnemonic.wordCount))
                } else {
                    print(
                        "Vault restored to \(options.vaultPath) (network \(header.network.rawValue), "
                            + "master fingerprint \(header.masterFingerprint)).")
                }
            }
        }

        /// A message for a mnemonic error; an unknown word names its position and the nearest valid words.
        static func explain(_ error: MnemonicError) -> String {
            switch error {
            case .unknownWord(let number, let suggestions):
                let hint = suggestions.isEmpty ? "" : "; did you mean: \(suggestions.joined(separator: ", "))?"
                return "word \(number) is not in the BIP39 English wordlist\(hint)"
            case .invalidChecksum:
                return "the checksum does not match: a word is wrong or out of order"
            case .invalidWordCount(let count):
                return "\(count) words; a mnemonic has 12, 15, 18, 21 or 24"
            case .invalidEntropyLength(let count):
                return "invalid entropy length \(count)"
            }
        }
    }
}
