import ArgumentParser

extension AirlockSigner {
    /// `airlock-signer backup show|verify`.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the mnemonic or check your written backup.",
            discussion: """
                Examples:
                  airlock-signer backup show --show-secret
                  airlock-signer backup verify
                """,
            subcommands: [BackupShow.self, BackupVerify.self])
    }
}
