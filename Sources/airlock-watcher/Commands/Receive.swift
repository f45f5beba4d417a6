import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import QRImage
import Watcher

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
            let wallet = try context.wallet()
            let record = try context.store.nextUnusedAddress(wallet: wallet, keychain: .external, fresh: new)
            var query: [String] = []
            if let requested { query.append("amount=\(Self.bip21Amount(requested))") }
            if let label {
                let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
                query.append("label=\(label.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")")
                try context.store.upsertLabels(
                    [Label(type: "addr", ref: record.address, label: label)], walletID: try wallet.requireID())
            }
            let uri = "bitcoin:\(record.address)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
            if let qr {
                let png: [UInt8]
                let caption = FrameCaption.invoice(
                    address: record.address, amount: requested?.description, label: label)
                do {
                    png = try QRCode(text: uri).pngData(caption: caption.lines(part: 1, of: 1))
                } catch {
                    throw CLIError(.invalidInput, "cannot make a QR code of \(uri): \(error)")
                }
                try LocalFiles.write(Data(png), to: qr)
            }
            let written = qr.map { [$0] } ?? []
            if global.json {
                try JSONOutput.print(
                    ReceiveJSON(address: record.address, index: record.index, uri: uri, qr: qr), files: written)
            } else {
                print(record.address)
                print(uri)
                OutputOptions.printWritten(written)
            }
        }
    }

    /// BIP21 amounts are decimal BTC without trailing zeros.
    static func bip21Amount(_ amount: Amount) -> String {
        var text = amount.btcString
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
