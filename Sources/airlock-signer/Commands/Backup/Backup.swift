import ArgumentParser

extension AirlockSigner {
    /// `airlock-signer backup show|verify`.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the mnemonic, check your written backup, or write SLIP-39 shares.",
            discussion: """
                Examples:
                  airlock-signer backup show --show-secret
                  airlock-signer backup verify
                  airlock-signer backup slip39 --shares 2of3
                """,
            subcommands: [BackupShow.self, BackupVerify.self, BackupSLIP39.self])
    }
}
