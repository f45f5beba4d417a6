import ArgumentParser
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer backup verify`: the word check again.
    struct BackupVerify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check your written backup: type back three randomly chosen words (one per line).",
            discussion: """
                Exit status 0 when every word is right, 4 when a word is wrong three times.

                Examples:
                  airlock-signer backup verify
                  airlock-signer backup verify --password-file pw.txt < answers.txt
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                guard let mnemonic = unlocked.mnemonic else { throw BackupShow.noWords }
                try BackupCheck.run(mnemonic)
                if options.json { try JSONOutput.print(BackupVerifyJSON(backupCheck: "passed")) }
            }
        }
    }
}
