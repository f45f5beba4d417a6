import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Foundation
import Watcher

/// `airlock-watcher eth broadcast`.
struct EthBroadcast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcast",
        abstract: "Broadcast the transaction an ur:eth-signature (text, file or PNG frames) signs.",
        discussion: """
            The signature must answer a request this account made and has not broadcast, and recover to its \
            sender; the node must be on the account's chain. --wait waits for the receipt and reports mined or \
            failed (reverted, its gas spent).

            Examples:
              airlock-watcher eth broadcast signature.png --wait
              airlock-watcher eth broadcast signature.txt --json
            """)

    struct Output: Encodable {
        let requestId: String
        let hash: String
        let status: String
        let block: UInt64?
        let gasUsed: UInt64?
        let feeWei: String?
    }

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The ur:eth-signature: a file, '-' or PNG images.") var input: [String]
    @Flag(help: "Wait for the receipt.") var wait = false
    @Option(help: "Seconds to wait with --wait.") var timeout = 120

    func run() async throws {
        try await ErrorReporting.run {
            let read = try InputReader.read(input, expecting: [.ethSignature])
            guard case .ethSignature(let signature) = read.payload else {
                throw CLIError(.invalidInput, "a \(read.payload.kind.rawValue) is not an eth-signature")
            }
            let context = try EthContext(global)
            let account = try context.account()
            let id = account.id ?? 0
            let signed = try EthereumBroadcast.assemble(
                signature, records: try context.store.ethereumTransactions(accountID: id))
            let node = try context.node()
            try await node.checkChain(account.chainID, account: account.name)
            let answered = try await node.sendRawTransaction(signed.raw)
            guard answered == signed.hash else {
                throw ChainError.verificationFailed(
                    "the node reports hash \(EthHex.data(answered)) for the transaction \(EthHex.data(signed.hash))")
            }
            let hash = EthHex.data(signed.hash)
            try context.store.markBroadcast(
                requestID: signed.record.requestID, accountID: id, hash: hash, signed: signed.raw)
            if !global.json { Diagnostics.print("broadcast \(hash)") }
            var record = signed.record
            record.status = .pending
            if wait {
                let deadline = Date().addingTimeInterval(TimeInterval(timeout))
                while try await node.receipt(hash: signed.hash) == nil {
                    guard Date() < deadline else {
                        throw ChainError.timeout(operation: "waiting for the receipt of \(hash)", seconds: timeout)
                    }
                    try await Task.sleep(nanoseconds: 500_000_000)
                }
                _ = try await EthereumSync.sync(account: account, store: context.store, node: node)
                if let settled = try context.store.ethereumTransactions(accountID: id).first(where: {
                    $0.requestID == record.requestID
                }) {
                    record = settled
                }
            }
            if global.json {
                try JSONOutput.print(
                    Output(
                        requestId: record.requestID, hash: hash, status: record.status.rawValue, block: record.block,
                        gasUsed: record.gasUsed, feeWei: record.feePaid?.amount.description))
            } else {
                print(hash)
                switch record.status {
                case .mined: print("mined in block \(record.block ?? 0), fee \(record.feePaid?.etherString ?? "?") ETH")
                case .failed:
                    print(
                        "FAILED (reverted) in block \(record.block ?? 0); gas used \(record.gasUsed ?? 0), fee "
                            + "\(record.feePaid?.etherString ?? "?") ETH spent")
                default: print(record.status.rawValue)
                }
            }
            if record.status == .failed { throw ExitCode(ExitStatus.network.rawValue) }
        }
    }
}
