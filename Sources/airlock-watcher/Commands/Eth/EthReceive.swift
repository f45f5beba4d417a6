import ArgumentParser
import CLISupport
import Ethereum
import Foundation
import QRImage
import Watcher

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

    struct Output: Encodable {
        let address: String
        let index: Int
        let uri: String
        let qr: String?
    }

    @OptionGroup var global: GlobalOptions
    @Option(help: "The address index of the account (default 0).") var index = 0
    @Option(help: "The amount: ETH (0.5eth, 5gwei) or, with --token, token units (12.5).") var amount: String?
    @Option(help: "A followed token's contract: the URI asks for a transfer of it.") var token: String?
    @Option(help: "Write the URI as a QR code to this PNG.") var qr: String?

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            let account = try context.account()
            guard let entry = account.entries.first(where: { $0.index == index }) else {
                throw CLIError(.invalidInput, "the account has no address index \(index)")
            }
            let chain = account.chainID == 1 ? "" : "@\(account.chainID)"
            var uri: String
            if let token {
                let contract = try parseAddressArgument(token, what: "--token")
                guard
                    let known = try context.store.ethereumTokens(accountID: account.id ?? 0).first(where: {
                        $0.contract == contract
                    })
                else { throw CLIError(.invalidInput, "the account follows no token \(contract); token add first") }
                uri = "ethereum:\(contract.checksummed)\(chain)/transfer?address=\(entry.address.checksummed)"
                if let amount { uri += "&uint256=\(try EthereumSpend.baseUnits(amount, decimals: known.decimals))" }
            } else {
                uri = "ethereum:\(entry.address.checksummed)\(chain)"
                if let amount { uri += "?value=\(try parseEtherAmount(amount).amount)" }
            }
            if let qr {
                let png: [UInt8]
                do { png = try QRCode(text: uri).pngData() } catch {
                    throw CLIError(.invalidInput, "cannot make a QR code of \(uri): \(error)")
                }
                try LocalFiles.write(Data(png), to: qr)
            }
            if global.json {
                try JSONOutput.print(Output(address: entry.address.checksummed, index: entry.index, uri: uri, qr: qr))
            } else {
                print(entry.address.checksummed)
                print(uri)
                if let qr { Diagnostics.print("QR code written to \(qr)") }
            }
        }
    }
}
