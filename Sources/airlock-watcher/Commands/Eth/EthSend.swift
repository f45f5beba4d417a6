import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Watcher
import WatcherEthereum

/// `airlock-watcher eth send`.
struct EthSend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Build an EIP-1559 transaction and write it as an ur:eth-sign-request for the signer.",
        discussion: """
            The nonce, balance and gas come from the node; the fees from eth_feeHistory (priority fee: the median \
            of the last blocks' 50th percentile; max fee: twice the next base fee plus it) unless --max-fee and \
            --priority-fee (gwei) are given. The request is kept in the data directory until its signature is \
            broadcast. --token (a followed token's symbol or contract) sends an ERC-20 transfer of --amount token \
            units; --max sends all the ETH beyond the worst-case fee (all of the token with --token). A transfer \
            the token contract refuses when the node estimates it (more than the balance, a paused token) exits 2 \
            with the contract's reason.

            Examples:
              airlock-watcher eth send --to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --amount 0.1eth --qr request.png
              airlock-watcher eth send --to 0x5aAe…BeAed --token ATT --amount 12.5 --out request.txt
              airlock-watcher eth send --to 0x5aAe…BeAed --max --max-fee 30 --priority-fee 1.5
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "The recipient address.") var to: String
    @Option(help: "The amount: 0.1eth, 5gwei, 100wei; with --token, token units (12.5).") var amount: String?
    @Flag(help: "Send everything (ETH beyond the worst-case fee, or all of the token).") var max = false
    @Option(help: "An ERC-20 token the account follows (token add): its symbol (ATT) or contract address.")
    var token: String?
    @Option(name: .customLong("max-fee"), help: "Max fee per gas in gwei.") var maxFee: String?
    @Option(name: .customLong("priority-fee"), help: "Max priority fee per gas in gwei.") var priorityFee: String?
    @Option(name: .customLong("gas-limit"), help: "The gas limit (default: the node's estimate).") var gasLimit: UInt64?
    @Option(help: "The sending address's index in the account.") var index = 0

    func validate() throws {
        guard (amount == nil) != !max else { throw ValidationError("give either --amount or --max") }
        try output.validate()
    }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let options = EthereumFlows.SendOptions(
                wallet: global.wallet, to: to, amount: amount, max: max, token: token, maxFee: maxFee,
                priorityFee: priorityFee, gasLimit: gasLimit, index: index)
            let report = try await EthereumFlows.send(options, store: context.store, node: context.node)
            try EthRequestOutput.print(report, output: output, json: global.json)
        }
    }

}
