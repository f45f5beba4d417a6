import ArgumentParser
import CLISupport
import Ethereum
import Foundation
import QRImage
import Watcher
import WatcherEthereum

/// `airlock-watcher eth receive`.
struct EthReceive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Show an address of the account and its EIP-681 payment URI, as a QR code PNG with --qr.",
        discussion: """
            With --amount the URI asks for that much ETH (value in wei); with --token and --amount for that many \
            tokens (an ERC-20 transfer URI, amount in base units).

            Examples:
              airlock-watcher eth receive --qr address.png
              airlock-watcher eth receive --amount 0.5eth
              airlock-watcher eth receive --token 0xF2E2…395b --amount 12.5
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "The address index of the account (default 0).") var index = 0
    @Option(help: "The amount: ETH (0.5eth, 5gwei) or, with --token, token units (12.5).") var amount: String?
    @Option(help: "A followed token's contract: the URI asks for a transfer of it.") var token: String?
    @Option(help: "Write the URI as a QR code to this PNG.") var qr: String?

    func run() async throws {
        try await ErrorReporting.run {
            let report = try EthereumFlows.receive(
                wallet: global.wallet, index: index, amount: amount, token: token, store: try EthContext(global).store)
            if let qr {
                let png: [UInt8]
                do { png = try QRCode(text: report.uri).pngData() } catch {
                    throw CLIError(.invalidInput, "cannot make a QR code of \(report.uri): \(error)")
                }
                try LocalFiles.write(Data(png), to: qr)
            }
            if global.json { return try JSONOutput.print(report.json(qr: qr)) }
            print(report.entry.address.checksummed)
            print(report.uri)
            if let qr { Diagnostics.print("QR code written to \(qr)") }
        }
    }

}
