import ArgumentParser

extension AirlockSigner {
    /// `airlock-signer key export|import|list`: single private keys of either chain.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a private key (WIF, hex, keystore v3), import one into the vault, list imported keys.",
            discussion: """
                Bitcoin keys are WIF or hex, Ethereum keys hex or a keystore v3 file (as Geth, MetaMask and \
                MyEtherWallet write them). Only a keystore is written to a file; WIF and hex are printed with \
                --show-secret only. Imported keys are sealed inside the vault with the seed.

                Examples:
                  airlock-signer key export --chain eth --index 0 --out key.json
                  airlock-signer key import key.json --chain eth --label hot-wallet
                  airlock-signer key list
                """,
            subcommands: [KeyExport.self, KeyImport.self, KeyList.self])
    }
}
