import ArgumentParser

/// `airlock-watcher eth …`: Ethereum accounts beside the Bitcoin wallets (docs/architecture.md section 10).
struct Eth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eth",
        abstract: "Ethereum accounts: balances and ERC-20 tokens, sends as EIP-4527 requests to the signer.",
        discussion: """
            The Ethereum node is set apart from the Bitcoin one: airlock-watcher node set eth+http://HOST:PORT. \
            --wallet names the Ethereum account when there are several.

            Examples:
              airlock-signer export --chain eth --qr account.png
              airlock-watcher eth import account.png --name main --chain-id 1
              airlock-watcher node set eth+https://rpc.example.org
              airlock-watcher eth sync
              airlock-watcher eth balance --json
              airlock-watcher eth send --to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --amount 0.1eth --qr request.png
              airlock-watcher eth broadcast signature.png --wait
            """,
        subcommands: [
            EthImport.self, EthSync.self, EthBalance.self, EthReceive.self, EthToken.self, EthSend.self,
            EthBroadcast.self, EthBump.self, EthHistory.self,
        ])
}
