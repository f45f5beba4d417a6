import AirgapTransport
import ArgumentParser
import CLISupport
import ChainCore
import Ethereum
import Foundation
import Watcher
import WatcherEthereum

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
            let json = global.json
            let report = try await EthereumFlows.broadcast(
                signature, wallet: global.wallet, wait: wait, timeout: timeout, store: context.store,
                node: context.node, broadcasted: { if !json { Diagnostics.print("broadcast \($0)") } })
            if json { try JSONOutput.print(report.json) } else { printLines(report.lines) }
            if report.failed { throw ExitCode(ExitStatus.network.rawValue) }
        }
    }

}
