import ArgumentParser
import BitcoinCrypto
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer passwd`: a new vault password, replaced atomically.
    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the vault password (atomic: the vault opens with the old or the new one, never neither).",
            discussion: """
                Examples:
                  airlock-signer passwd
                  airlock-signer passwd --password-file old.txt --new-password-file new.txt --kdf-memory 512
                """)

        @OptionGroup var options: VaultOptions
        @Option(help: "Read the new password from the first line of PATH; else it is asked for twice.")
        var newPasswordFile: String?
        @Option(help: "New Argon2id memory in MiB (at least 64; default: keep).") var kdfMemory: Int?

        func validate() throws {
            if let kdfMemory, kdfMemory < 64 || kdfMemory > 4096 {
                throw ValidationError("--kdf-memory must be 64...4096")
            }
            if newPasswordFile == "-", options.passwordFile == "-" {
                throw ValidationError("the old and the new password cannot both come from stdin")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                let newPassword = try SecretInput.newSecret(
                    file: newPasswordFile, prompt: "New vault password: ", what: "password")
                let kdf = kdfMemory.map {
                    Argon2Parameters(memoryBytes: $0 << 20, iterations: unlocked.header.kdf.iterations)
                }
                try unlocked.changePassword(to: newPassword, kdf: kdf)
                if options.json {
                    try JSONOutput.print(PasswdJSON(vault: options.vaultPath, passwordChanged: true))
                } else {
                    print("Password changed for \(options.vaultPath).")
                }
            }
        }
    }
}
