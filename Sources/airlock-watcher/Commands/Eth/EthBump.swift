import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Watcher

/// `airlock-watcher eth bump`.
struct EthBump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump",
        abstract: "Replace a pending Ethereum transaction: the same nonce with higher fees, as a new request.",
        discussion: """
            The new fees are at least 12.5% above the old ones on both fields (nodes ask 10%), or the current \
            suggestion, or --max-fee/--priority-fee (gwei) when higher. Whichever of the two is mined, sync marks \
            the other replaced.

            Examples:
              airlock-watcher eth bump 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 --qr bump.png
              airlock-watcher eth bump 0x5c50…2060 --priority-fee 3 --max-fee 60 --json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The transaction hash (or request id) to replace.") var transaction: String
    @Option(name: .customLong("max-fee"), help: "Max fee per gas in gwei.") var maxFee: String?
    @Option(name: .customLong("priority-fee"), help: "Max priority fee per gas in gwei.") var priorityFee: String?

    func validate() throws { try output.validate() }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let account = try context.account()
            let id = account.id ?? 0
            let key = transaction.lowercased()
            guard
                let record = try context.store.ethereumTransactions(accountID: id).first(where: {
                    $0.hash == key || $0.requestID == key
                })
            else { throw CLIError(.invalidInput, "the account built no transaction \(transaction)") }
            let node = try context.node()
            try await node.checkChain(account.chainID, account: account.name)
            let tip = try priorityFee.map { try parseGwei($0, option: "--priority-fee") }
            let cap = try maxFee.map { try parseGwei($0, option: "--max-fee") }
            let history = try await node.feeHistory(blocks: 5, percentiles: [EthereumSpend.rewardPercentile])
            let fees = try EthereumSpend.fees(
                history: history, fallbackPriority: try? await node.maxPriorityFeePerGas(), priority: tip, maxFee: cap)
            let balance = try await node.balance(of: record.from, at: .latest)
            let built = try EthereumSpend.bump(record, account: account, fees: fees, balance: balance)
            try context.store.addEthereumTransaction(built.record, accountID: id)
            let urText = try URRegistryItem.ethSignRequest(built.request).ur().string
            let written = try output.write(
                .ethSignRequest(built.request), fileBytes: Array((urText + "\n").utf8), json: global.json)
            let r = built.record
            if global.json {
                try JSONOutput.print(
                    EthSend.Output(
                        requestId: r.requestID, from: r.from.checksummed, to: r.to.checksummed, nonce: r.nonce,
                        gasLimit: r.gasLimit, maxFeePerGas: r.maxFeePerGas.description,
                        maxPriorityFeePerGas: r.maxPriorityFeePerGas.description, value: r.value.amount.description,
                        token: r.token?.checksummed, tokenAmount: r.tokenAmount?.description, ur: urText,
                        written: written), files: written)
            } else {
                if !output.isRequested { print(urText) }
                Diagnostics.print(
                    "replacement request \(r.requestID) for nonce \(r.nonce): max fee \(Wei(r.maxFeePerGas).gweiString) "
                        + "gwei, priority \(Wei(r.maxPriorityFeePerGas).gweiString) gwei")
                OutputOptions.printWritten(written)
            }
        }
    }
}
