import ArgumentParser
import CLISupport
import Foundation

/// `airlock-watcher`: the watch-only online companion (docs/architecture.md section 2).
@main
struct AirlockWatcher: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-watcher",
        abstract:
            "Watch-only Bitcoin and Ethereum wallet: tracks balances from a node, builds unsigned requests, broadcasts signed ones.",
        discussion: """
            Holds no secrets. Imports the signer's account descriptors, and exchanges PSBTs with the signer as \
            QR-code PNG images or files. Ethereum accounts (the signer's ur:crypto-hdkey, or addresses) live \
            beside Bitcoin wallets: node set eth+http://HOST:PORT names an Ethereum node, and import, sync, \
            balance, history, send (ETH or --token SYMBOL) and broadcast work on them (also as eth …). Each wallet \
            is checked against its node's network before a sync. Data lives in --data-dir (default \
            $AIRLOCK_HOME, else ~/.local/share/airlock).

            Examples:
              airlock-signer export --format descriptor > account.txt
              airlock-watcher import account.txt --name savings --network regtest
              airlock-watcher node set electrum://127.0.0.1:50001
              airlock-watcher sync
              airlock-watcher balance --json
              airlock-watcher receive --qr invoice.png
              airlock-watcher import eth-account.png --name eth --chain-id 1
              airlock-watcher send --to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --amount 0.1eth --qr request.png
            """,
        version: AirlockVersion.string,
        subcommands: [
            Import.self, Node.self, Sync.self, Balance.self, History.self, Utxos.self, Addresses.self, Receive.self,
            Labels.self, BackupCommand.self, Restore.self, Wallets.self, Send.self, Combine.self, Finalize.self,
            Broadcast.self, Bump.self, Inspect.self, Convert.self, Message.self, Eth.self, Serve.self,
        ]
    )

    /// Options every command takes may also stand before the subcommand (`airlock-watcher --wallet NAME balance`).
    static let leadingOptions = LeadingOptions(valued: ["data-dir", "wallet"], flags: ["json"])

    static func main() async {
        MallocTuning.forShortProcess()
        let arguments = leadingOptions.reordered(Array(CommandLine.arguments.dropFirst()))
        switch EthereumRouting.chain(arguments) {
        case .ethereum: await CommandMain.run(EthereumCommands.self, arguments: arguments)
        case .bitcoin: await CommandMain.run(Self.self, arguments: arguments)
        }
    }
}
