import ArgumentParser
import CLISupport
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer backup show`: the mnemonic, after the password and an explicit yes.
    struct BackupShow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the mnemonic words (needs --show-secret or a confirmation on the terminal).",
            discussion: """
                Examples:
                  airlock-signer backup show
                  airlock-signer backup show --show-secret --password-file pw.txt --json
                """)

        @OptionGroup var options: VaultOptions
        @Flag(help: "Print the secret words without asking.") var showSecret = false

        /// A SLIP-39 vault has no BIP39 words.
        static let noWords = CLIError(
            .usage,
            "this vault holds a SLIP-39 backup, not BIP39 words; write new shares with `backup slip39 --shares MofN`")

        func run() async throws {
            try await ErrorReporting.run {
                if !showSecret {
                    guard isatty(STDIN_FILENO) == 1 else {
                        throw CLIError(.refused, "refusing to print the mnemonic without --show-secret")
                    }
                    guard Prompt.confirm("Print the secret words on this screen?") else {
                        throw CLIError(.refused, "not shown")
                    }
                }
                let unlocked = try options.unlock()
                guard let mnemonic = unlocked.mnemonic else { throw Self.noWords }
                try BackupCheck.show(
                    mnemonic, json: options.json,
                    masterFingerprint: unlocked.header.masterFingerprint.hexString)
            }
        }
    }
}
