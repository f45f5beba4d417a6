import ArgumentParser

extension AirlockSigner {
    /// `airlock-signer multisig register|list`.
    struct Multisig: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register multisig wallets this seed is a cosigner of, so their change can be verified.",
            discussion: """
                Examples:
                  airlock-signer multisig register wallet.txt --name vault-2of3
                  airlock-signer multisig register sparrow-export.png
                  airlock-signer multisig list --json
                """,
            subcommands: [MultisigRegister.self, MultisigList.self])
    }
}
