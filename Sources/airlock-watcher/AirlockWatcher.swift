import ArgumentParser
import CLISupport

/// `airlock-watcher`: the watch-only online companion (DESIGN.md section 2).
@main
struct AirlockWatcher: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-watcher",
        abstract: "Watch-only Bitcoin wallet: tracks balances from a node, builds unsigned PSBTs, broadcasts signed ones.",
        discussion: """
            Holds no secrets. Imports the signer's account descriptors, and exchanges PSBTs with the signer as
            QR-code PNG images or files.

            Examples:
              airlock-watcher import account.png --name savings
              airlock-watcher node set electrum://127.0.0.1:50001
              airlock-watcher send --to bcrt1q... --amount 0.001btc --qr unsigned.png
            """,
        version: AirlockVersion.string,
        subcommands: []
    )
}
