import ArgumentParser
import CLISupport
import Watcher

/// `airlock-watcher eth sync`.
struct EthSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Read balances, nonces, token balances and transfers, and the fate of sent transactions.",
        discussion: """
            A node on another chain id than the account's is refused (exit 5) and nothing is written.

            Examples:
              airlock-watcher eth sync
              airlock-watcher --wallet main eth sync --json
            """)

    struct Output: Encodable {
        let account: String
        let block: UInt64
        let newTransfers: Int
        let updatedTransactions: Int
    }

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let account = try context.account()
            let report = try await EthereumSync.sync(account: account, store: context.store, node: try context.node())
            if global.json {
                try JSONOutput.print(
                    Output(
                        account: account.name, block: report.block, newTransfers: report.newTransfers,
                        updatedTransactions: report.updatedTransactions))
            } else {
                print(
                    "synced '\(account.name)' to block \(report.block): \(report.newTransfers) new token transfers, "
                        + "\(report.updatedTransactions) transactions settled")
            }
        }
    }
}
