import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Ethereum
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer key export`: one private key of the seed (or an imported one) as WIF, hex or keystore v3.
    struct KeyExport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export one private key: WIF or hex (Bitcoin), hex or keystore v3 (Ethereum).",
            discussion: """
                The key is the seed's at --path, or at --index on the default account (Bitcoin: m/84'/c'/0'/0/N, \
                Ethereum: m/44'/60'/0'/0/N), or the imported key with --address. Ethereum keys go by default to a \
                keystore v3 file (scrypt N=262144 r=8 p=1 as Geth writes it, AES-128-CTR, Keccak MAC), encrypted \
                under a new password (--keystore-password-file, else asked twice); only a keystore is written to a \
                file (--out), else printed. WIF and hex are printed with --show-secret only (else exit 4), never \
                written to a file. Export asks for confirmation (--yes answers; no terminal and no --yes: exit 4).

                Examples:
                  airlock-signer key export --chain eth --index 0 --out account0.json
                  airlock-signer key export --chain btc --index 3 --format wif --show-secret --yes
                  airlock-signer key export --chain eth --address 0xAbC… --format hex --show-secret
                """)

        enum Format: String, CaseIterable, ExpressibleByArgument {
            case wif, hex, keystore
        }

        enum KDFChoice: String, CaseIterable, ExpressibleByArgument {
            case scrypt, pbkdf2
        }

        @OptionGroup var options: VaultOptions
        @Option(help: "btc or eth.") var chain: Chain = .btc
        @Option(help: "Index on the default account's receive branch.") var index: UInt32?
        @Option(help: "A full derivation path (m/44'/60'/0'/0/5).") var path: String?
        @Option(help: "The address of an imported key.") var address: String?
        @Option(help: "wif or hex (Bitcoin; default wif), hex or keystore (Ethereum; default keystore).")
        var format: Format?
        @Option(help: "Keystore KDF: scrypt (default, N=262144 r=8 p=1) or pbkdf2 (262144 rounds of HMAC-SHA-256).")
        var kdf: KDFChoice = .scrypt
        @Option(help: "Read the keystore's new password from the first line of PATH; else asked twice.")
        var keystorePasswordFile: String?
        @Option(help: "Write the keystore to FILE (mode 0600).") var out: String?
        @Flag(help: "Print a WIF or hex key on standard output.") var showSecret = false
        @Flag(help: "Export without asking for confirmation.") var yes = false

        var chosenFormat: Format { format ?? (chain == .eth ? .keystore : .wif) }

        func validate() throws {
            let sources = [index != nil, path != nil, address != nil].filter { $0 }.count
            guard sources <= 1 else { throw ValidationError("give one of --index, --path, --address") }
            switch (chain, chosenFormat) {
            case (.btc, .keystore): throw ValidationError("a keystore v3 file holds an Ethereum key: use --chain eth")
            case (.eth, .wif): throw ValidationError("WIF is a Bitcoin format: use --format hex or keystore")
            default: break
            }
            if out != nil, chosenFormat != .keystore {
                throw ValidationError("only a keystore is written to a file; WIF and hex are printed (--show-secret)")
            }
            if keystorePasswordFile != nil, chosenFormat != .keystore {
                throw ValidationError("--keystore-password-file needs --format keystore")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                if chosenFormat != .keystore, !showSecret {
                    throw CLIError(.refused, "refusing to print a private key without --show-secret")
                }
                if !yes, isatty(STDIN_FILENO) != 1 {
                    throw CLIError(.refused, "not exported: no terminal to confirm on (pass --yes)")
                }
                let unlocked = try options.unlock()
                let (key, compressed, keyPath, label) = try choose(unlocked)
                let shownAddress =
                    chain == .eth
                    ? key.ethereumAddress.checksummed
                    : ImportedKey(chain: .bitcoin, key: key, compressed: compressed).address(network: unlocked.network)
                let shownLabel = label.map { DisplayText.show($0) }
                let destination: String =
                    switch chosenFormat {
                    case .keystore:
                        out.map { "keystore v3 file \($0) (sealed with its own password)" }
                            ?? "keystore v3 text on standard output (sealed with its own password)"
                    case .wif, .hex: "\(chosenFormat.rawValue) on standard output, in the clear"
                    }
                let review = [
                    "Export a private key (whoever holds it can spend without this vault)",
                    "  address: \(shownAddress)",
                    "  key: " + (keyPath ?? "imported" + (shownLabel.map { " '\($0.text)'" } ?? "")),
                    "  as: \(destination)",
                ].joined(separator: "\n")
                try ReviewGate.run(
                    review: review, hiddenCharacters: shownLabel?.hadHiddenCharacters ?? false, json: options.json,
                    yes: yes, question: "Export the private key of \(shownAddress)?", what: "exported",
                    answer: keystorePasswordFile == "-" ? .controllingTerminal : .terminal)
                var secret: String?
                var keystore: String?
                var written: [String] = []
                switch chosenFormat {
                case .wif:
                    secret = WIF(privateKey: key, isCompressed: compressed, network: unlocked.network).base58String
                case .hex:
                    secret = (chain == .eth ? "0x" : "") + key.secret.unsafeCopyToArray().hexString
                case .keystore:
                    let password = try SecretInput.newSecret(
                        file: keystorePasswordFile, prompt: "Keystore password: ", what: "keystore password")
                    let text = KeystoreV3.encrypt(
                        key: key, password: password,
                        kdf: kdf == .scrypt ? .standard : .pbkdf2(iterations: 262_144))
                    if let out {
                        try AtomicFileWriter.write(Array((text + "\n").utf8), to: out, mode: 0o600)
                        written = [out]
                    } else {
                        keystore = text
                    }
                }
                if options.json {
                    try JSONOutput.print(
                        KeyJSON(
                            chain: chain.rawValue, address: shownAddress, path: keyPath, label: nil,
                            format: chosenFormat.rawValue, secret: secret, keystore: keystore, written: written),
                        files: written)
                } else {
                    if let secret { print(secret) }
                    if let keystore { print(keystore) }
                    Diagnostics.print("\(shownAddress)" + (keyPath.map { " (\($0))" } ?? " (imported)"))
                    OutputOptions.printWritten(written)
                }
            }
        }

        /// The key asked for, whether its Bitcoin public key is compressed, and its path (nil when imported).
        private func choose(_ unlocked: UnlockedVault) throws -> (PrivateKey, Bool, String?, String?) {
            if let address {
                let wanted = chain == .eth ? ImportedKey.Chain.ethereum : .bitcoin
                let match = unlocked.importedKeys.first {
                    $0.chain == wanted && $0.address(network: unlocked.network).lowercased() == address.lowercased()
                }
                guard let match else {
                    throw CLIError(.invalidInput, "no imported \(chain.rawValue) key has address \(address)")
                }
                return (match.key, match.compressed, nil, match.label.isEmpty ? nil : match.label)
            }
            let master = try options.masterKey(of: unlocked)
            let text =
                path
                ?? (chain == .eth
                    ? "m/44'/60'/0'/0/\(index ?? 0)" : "m/84'/\(unlocked.network.coinType)'/0'/0/\(index ?? 0)")
            let derivation: DerivationPath
            do { derivation = try DerivationPath(string: text) } catch {
                throw CLIError(.usage, "--path: '\(text)' is not a derivation path")
            }
            let key = try master.derive(derivation).privateKey
            return (key, true, text, nil)
        }
    }
}
