import AirgapTransport
import ArgumentParser
import CLISupport
import Signer

extension AirlockSigner {
    /// `airlock-signer multisig register IN`.
    struct MultisigRegister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Register a multisig wallet: a wsh(sortedmulti(…)) descriptor or the Coldcard/Sparrow text.",
            discussion: """
                IN is a file (descriptor text, or the multisig text format with Name:, Policy: M of N, \
                Derivation:, Format: and XFP: xpub lines), '-' for stdin, or PNG QR codes. This vault's key must \
                be one of the cosigners (checked by re-deriving it), else the wallet is refused (exit 4).

                Examples:
                  airlock-signer multisig register wallet.txt
                  echo 'wsh(sortedmulti(2,[…]tpub…/<0;1>/*,…))' | airlock-signer multisig register - --name team
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The wallet: a file, '-' for stdin, or PNG images.") var input: [String]
        @Option(help: "Name for the wallet (default: the Name: line, else 'multisig').") var name: String?

        func run() async throws {
            try await ErrorReporting.run {
                let read = try InputReader.read(input)
                let text: String
                switch read.payload {
                case .descriptor(let t), .text(let t), .json(let t): text = t
                default:
                    throw CLIError(
                        .invalidInput,
                        "expected a multisig descriptor or wallet text, got \(read.payload.kind.rawValue)")
                }
                let wallet: MultisigWallet
                if text.lowercased().contains("policy:") {
                    wallet = try MultisigWallet(coldcardText: text, name: name)
                } else {
                    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
                    wallet = try MultisigWallet(name: name ?? "multisig", descriptor: line)
                }
                let unlocked = try options.unlock()
                let passphrase = try options.passphraseFile.map { try SecretInput.line(fromFile: $0) }
                try unlocked.register(wallet, passphrase: passphrase)
                if options.json {
                    try JSONOutput.print(MultisigJSON(wallet))
                } else {
                    print(
                        "Registered '\(wallet.name)': \(wallet.threshold) of \(wallet.keyCount), \(wallet.scriptType)")
                    print(wallet.descriptorText)
                }
            }
        }
    }
}
