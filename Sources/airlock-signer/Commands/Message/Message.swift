import ArgumentParser

extension AirlockSigner {
    /// `airlock-signer message sign|verify`.
    struct Message: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a message with an address of this seed (BIP322 or legacy), or verify one.",
            discussion: """
                Examples:
                  airlock-signer message sign --message "I own this address" --index 0
                  airlock-signer message sign --address bcrt1q… --message-file proof.txt --format bip322-full
                  airlock-signer message verify --address bcrt1q… --message "hi" --signature smpAkcw…
                """,
            subcommands: [MessageSign.self, MessageVerify.self])
    }
}
