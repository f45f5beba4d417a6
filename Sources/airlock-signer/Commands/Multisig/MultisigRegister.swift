import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer multisig register IN`.
    struct MultisigRegister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract:
                "Register a multisig wallet: a wsh(sortedmulti(…)) or wsh(MINISCRIPT) descriptor or the Coldcard/Sparrow text.",
            discussion: """
                IN is a file (descriptor text, the multisig text format with Name:, Policy: M of N, \
                Derivation:, Format: and XFP: xpub lines, or a BSMS 1.0 descriptor record, encrypted with --token), \
                '-' for stdin, or PNG QR codes. A BSMS record's first address must be its descriptor's (else exit \
                2) and is shown. This vault's key must \
                be one of the cosigners (checked by re-deriving it), else the wallet is refused (exit 4). The same \
                key twice is refused (exit 4); a descriptor checksum, when present, must match (exit 2).

                The policy is shown first (on stderr): M of N, the script type, each cosigner's fingerprint, \
                derivation and xpub, and which one is this vault; a 1-of-N wallet is warned about. A miniscript \
                policy (wsh(MINISCRIPT), e.g. an inheritance wallet) is shown in words ("2 of A, B, C; or this \
                vault after 10 blocks"), and a key that can spend alone at any time is warned about. Every \
                spending path is analysed, wsh and tr alike (the key path and every leaf): each way the wallet can \
                be spent without this vault is named ("Dad alone after 10 blocks"), and a key that can spend alone \
                at any time is warned about. A wallet in which this vault holds two or more keys (by origin \
                fingerprint, or found by deriving this seed's BIP45, BIP48 and BIP87 accounts 0-99) is refused \
                (exit 4) unless --allow-own-keys: one signer would complete the spend. Then it asks; --yes \
                answers. Without --yes and without a terminal to ask on, nothing is stored (exit 4).

                --cosigner FINGERPRINT=NAME (repeatable) names the cosigner whose key origin has that master \
                fingerprint; the name is stored with the wallet and used wherever the signer names cosigners \
                ("2 of Alice, Bob, this vault; or Dad after 10 blocks"). A fingerprint not in the descriptor, or a \
                name that is empty, over 32 characters or holds control characters, is refused (exit 1), and \
                nothing is registered.

                Examples:
                  airlock-signer multisig register wallet.txt
                  airlock-signer multisig register wallet.txt --name family --yes
                  airlock-signer multisig register wallet.bsms --name team --yes
                  airlock-signer multisig register wallet.dat --token a54044308ceac9b7
                  echo 'wsh(sortedmulti(2,[…]tpub…/<0;1>/*,…))' | airlock-signer multisig register - --name team
                  airlock-signer multisig register inheritance-wsh-miniscript.txt --name heirs --yes
                  airlock-signer multisig register heirs.txt --cosigner 0ddba11a=Alice --cosigner 5a61ff8e=Dad --yes
                  airlock-signer multisig register --camera --name team
                """)

        @OptionGroup var options: VaultOptions
        @Argument(
            help: "The wallet: a file, '-' for stdin, or PNG images; with --camera the camera device or a video file.")
        var input: [String] = []
        @OptionGroup var camera: CameraOptions
        @Option(help: "Name for the wallet (default: the Name: line, else 'multisig').") var name: String?
        @Flag(help: "Register without asking (the policy is still shown).") var yes = false
        @Option(help: "The BSMS token (hex) of an encrypted BIP129 descriptor record.") var token: String?
        @Option(help: "Name a cosigner: FINGERPRINT=NAME (8 hex digits of a key origin; repeatable).")
        var cosigner: [String] = []
        @Flag(help: "Register a wallet in which this vault holds two or more keys (one signer then completes a spend).")
        var allowOwnKeys = false

        /// The `--cosigner` options, checked against the wallet's descriptor: a bad one is a command-line error.
        func named(_ wallet: MultisigWallet) throws -> MultisigWallet {
            guard !cosigner.isEmpty else { return wallet }
            do {
                let names = try cosigner.map { (option) throws(MultisigError) -> MultisigWallet.CosignerName in
                    guard let equals = option.firstIndex(of: "=") else { throw .unknownCosigner(option) }
                    return try MultisigWallet.CosignerName(
                        fingerprint: String(option[..<equals]), name: String(option[option.index(after: equals)...]))
                }
                return try MultisigWallet(name: wallet.name, descriptor: wallet.descriptorText, cosignerNames: names)
            } catch {
                throw CLIError(.usage, "--cosigner: \(error) (expected FINGERPRINT=NAME)")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let read = try camera.read(input)
                let text: String
                switch read.payload {
                case .descriptor(let t), .text(let t), .json(let t): text = t
                case .bytes(let bytes) where token != nil: text = bytes.hexString  // an encrypted BSMS record
                default:
                    throw CLIError(
                        .invalidInput,
                        "expected a multisig descriptor or wallet text, got \(read.payload.kind.rawValue)")
                }
                let parsed = try MultisigRegistration(text: text, token: token, name: name)
                let registration = MultisigRegistration(wallet: try named(parsed.wallet), bsms: parsed.bsms)
                let unlocked = try options.unlock()
                let passphrase = try options.passphraseFile.map { try SecretInput.line(fromFile: $0) }
                let review = try registration.review(
                    master: try unlocked.masterKey(passphrase: passphrase), network: unlocked.network,
                    allowOwnKeys: allowOwnKeys)
                try ReviewGate.run(
                    review: review.text, refusals: review.refusals, json: options.json, yes: yes,
                    question: "Register this wallet?", what: "registered", aftermath: "; nothing stored",
                    answer: input == ["-"] ? .controllingTerminal : .terminal)
                try unlocked.register(registration.wallet, passphrase: passphrase)
                try Self.print(registration.wallet, policy: review.policy, json: options.json)
            }
        }

        static func print(_ wallet: MultisigWallet, policy: MultisigPolicy, json: Bool) throws {
            if json {
                var object = MultisigWalletReport(wallet)
                object.warnings = policy.warnings
                object.pathsWithoutThisVault = policy.pathsWithoutThisVault
                try JSONOutput.print(object)
            } else {
                Swift.print("Registered '\(DisplayText.clean(wallet.name))': \(DisplayText.clean(wallet.summary))")
                Swift.print(wallet.descriptorText)
            }
        }
    }
}
