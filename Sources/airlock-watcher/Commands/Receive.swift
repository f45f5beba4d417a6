import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import QRImage
import Watcher
import WatcherFlows

/// `airlock-watcher receive [--qr PNG]`.
struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Show the next unused receive address, and its BIP21 URI as a QR code.",
        discussion: """
            Without --new, the same address is shown until a sync sees it used.

            Examples:
              airlock-watcher receive
              airlock-watcher receive --new --amount 0.001btc --label 'invoice 42' --qr invoice.png
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Hand out a fresh address, beyond every address shown before.")
    var new = false

    @Option(help: "Amount to request in the BIP21 URI, with its unit: 0.001btc or 100000sat.")
    var amount: String?

    @Option(help: "A label for the address (stored as a BIP329 label, and put in the URI).")
    var label: String?

    @Option(help: "Write the BIP21 URI as a QR code to this PNG.")
    var qr: String?

    func run() async throws {
        try await ErrorReporting.run {
            let requested = try amount.map { try AmountArgument.bitcoin($0) }
            let context = try WatcherContext(global)
            var report = try WalletReceive.address(
                store: context.store, wallet: try context.wallet(), fresh: new, amount: requested, label: label)
            if let qr {
                try Self.writeQR(report, to: qr)
                report.qr = qr
            }
            let written = qr.map { [$0] } ?? []
            if global.json {
                try JSONOutput.print(report, files: written)
            } else {
                print(report.lines.joined(separator: "\n"))
                OutputOptions.printWritten(written)
            }
        }
    }

    /// Writes the report's URI as a QR code with the invoice caption to the PNG `path`.
    static func writeQR(_ report: WalletReceive.Report, to path: String) throws {
        let caption = FrameCaption.invoice(
            address: report.address, amount: report.amount?.description, label: report.label)
        let png: [UInt8]
        do {
            png = try QRCode(text: report.uri).pngData(caption: caption.lines(part: 1, of: 1))
        } catch {
            throw CLIError(.invalidInput, "cannot make a QR code of \(report.uri): \(error)")
        }
        try LocalFiles.write(Data(png), to: path)
    }
}
