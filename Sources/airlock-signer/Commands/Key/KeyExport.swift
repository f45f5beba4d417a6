import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Ethereum
import Foundation
import Signer
import SignerReports

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
                try KeyExportPlan.check(chosenFormat.plan, showSecret: showSecret)
                if !yes, isatty(STDIN_FILENO) != 1 {
                    throw CLIError(.refused, "not exported: no terminal to confirm on (pass --yes)")
                }
                let unlocked = try options.unlock()
                let plan = try KeyExportPlan(
                    vault: unlocked, chain: chain == .eth ? .ethereum : .bitcoin, address: address, path: path,
                    index: index, master: { try options.masterKey(of: unlocked) })
                let review = plan.review(destination: destination)
                try ReviewGate.run(
                    review: review.text, hiddenCharacters: review.hiddenCharacters, json: options.json,
                    yes: yes, question: "Export the private key of \(plan.address)?", what: "exported",
                    answer: keystorePasswordFile == "-" ? .controllingTerminal : .terminal)
                let (secret, keystore, written) = try export(plan)
                if options.json {
                    try JSONOutput.print(
                        KeyJSON(
                            chain: chain.rawValue, address: plan.address, path: plan.path, label: nil,
                            format: chosenFormat.rawValue, secret: secret, keystore: keystore, written: written),
                        files: written)
                } else {
                    if let secret { print(secret) }
                    if let keystore { print(keystore) }
                    Diagnostics.print("\(plan.address)" + (plan.path.map { " (\($0))" } ?? " (imported)"))
                    OutputOptions.printWritten(written)
                }
            }
        }

        /// Where the key goes, for the review.
        var destination: String {
            switch chosenFormat {
            case .keystore:
                out.map { "keystore v3 file \($0) (sealed with its own password)" }
                    ?? "keystore v3 text on standard output (sealed with its own password)"
            case .wif, .hex: "\(chosenFormat.rawValue) on standard output, in the clear"
            }
        }

        /// The secret to print, or the keystore to print, or the file written.
        private func export(_ plan: KeyExportPlan) throws -> (String?, String?, [String]) {
            guard chosenFormat == .keystore else { return (plan.secret(chosenFormat.plan), nil, []) }
            let password = try SecretInput.newSecret(
                file: keystorePasswordFile, prompt: "Keystore password: ", what: "keystore password")
            let text = plan.keystore(password: password, scrypt: kdf == .scrypt)
            guard let out else { return (nil, text, []) }
            try AtomicFileWriter.write(Array((text + "\n").utf8), to: out, mode: 0o600)
            return (nil, nil, [out])
        }
    }
}

extension AirlockSigner.KeyExport.Format {
    var plan: KeyExportPlan.Format { KeyExportPlan.Format(rawValue: rawValue) ?? .keystore }
}
