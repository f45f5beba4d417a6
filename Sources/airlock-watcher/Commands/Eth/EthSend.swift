import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Watcher

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

    struct Output: Encodable {
        let requestId: String
        let from: String
        let to: String
        let nonce: UInt64
        let gasLimit: UInt64
        let maxFeePerGas: String
        let maxPriorityFeePerGas: String
        let value: String
        let token: String?
        let tokenAmount: String?
        let ur: String
        let written: [String]
    }

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
            let recipient = try parseAddressArgument(to, what: "--to")
            let context = try EthContext(global)
            let account = try context.account()
            guard let entry = account.entries.first(where: { $0.index == index }) else {
                throw CLIError(.invalidInput, "the account has no address index \(index)")
            }
            let tokens = try context.store.ethereumTokens(accountID: account.id ?? 0)
            var followed: EthereumToken?
            if let token { followed = try EthereumToken.find(token, among: tokens) }
            let tip = try priorityFee.map { try parseGwei($0, option: "--priority-fee") }
            let cap = try maxFee.map { try parseGwei($0, option: "--max-fee") }
            let node = try context.node()
            try await node.checkChain(account.chainID, account: account.name)
            let nonce = try await node.transactionCount(of: entry.address, at: .pending)
            let balance = try await node.balance(of: entry.address, at: .latest)
            var history: EthFeeHistory?
            var fallback: UInt256?
            if tip == nil || cap == nil {
                history = try await node.feeHistory(blocks: 5, percentiles: [EthereumSpend.rewardPercentile])
                if tip == nil { fallback = try? await node.maxPriorityFeePerGas() }
            }
            let fees = try EthereumSpend.fees(history: history, fallbackPriority: fallback, priority: tip, maxFee: cap)
            let payment: EthereumSpend.Payment
            var tokenBalance: UInt256?
            var gas: UInt64
            if let followed {
                let answer = try await node.call(
                    EthCall(to: followed.contract, data: ERC20Read.balanceOf(entry.address)), at: .latest)
                let held = try ERC20Read.uint(answer, server: node.displayName, field: "balanceOf")
                tokenBalance = held
                let units = max ? held : try EthereumSpend.baseUnits(amount ?? "", decimals: followed.decimals)
                payment = .token(contract: followed.contract, amount: units)
                let calldata = ERC20Call.transfer(to: recipient, amount: units).calldata
                if let gasLimit {
                    gas = gasLimit
                } else {
                    let estimate = try await node.estimateGas(
                        from: entry.address, to: followed.contract, value: Wei(.zero), data: calldata)
                    gas = estimate + estimate / 5  // a contract's gas can change between estimate and inclusion
                }
            } else {
                payment = max ? .allEther : .ether(try parseEtherAmount(amount ?? ""))
                if let gasLimit {
                    gas = gasLimit
                } else {
                    gas = try await node.estimateGas(from: entry.address, to: recipient, value: Wei(.zero), data: [])
                    if gas > 21000 { gas += gas / 5 }
                }
            }
            let built = try EthereumSpend.build(
                account: account, entry: entry, to: recipient, payment: payment, fees: fees, gasLimit: gas,
                nonce: nonce, balance: balance, tokenBalance: tokenBalance)
            try context.store.addEthereumTransaction(built.record, accountID: account.id ?? 0)
            let urText = try URRegistryItem.ethSignRequest(built.request).ur().string
            let written = try output.write(
                .ethSignRequest(built.request), fileBytes: Array((urText + "\n").utf8), json: global.json)
            let record = built.record
            if global.json {
                try JSONOutput.print(
                    Output(
                        requestId: record.requestID, from: record.from.checksummed, to: record.to.checksummed,
                        nonce: record.nonce, gasLimit: record.gasLimit, maxFeePerGas: record.maxFeePerGas.description,
                        maxPriorityFeePerGas: record.maxPriorityFeePerGas.description,
                        value: record.value.amount.description, token: record.token?.checksummed,
                        tokenAmount: record.tokenAmount?.description, ur: urText, written: written), files: written)
            } else {
                if !output.isRequested { print(urText) }
                let what =
                    followed.map {
                        "\(EthereumSpend.decimalString(record.tokenAmount ?? .zero, decimals: $0.decimals)) \($0.symbol)"
                    }
                    ?? "\(record.value.etherString) ETH"
                Diagnostics.print(
                    "request \(record.requestID): \(what) from \(record.from) to \(record.to), nonce \(record.nonce), "
                        + "gas \(record.gasLimit), max fee \(Wei(record.maxFeePerGas).gweiString) gwei, priority "
                        + "\(Wei(record.maxPriorityFeePerGas).gweiString) gwei")
                OutputOptions.printWritten(written)
            }
        }
    }
}
