import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher inspect IN`: the signer's PSBT decoding, plus what the wallet knows of it.
struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract:
            "Decode a PSBT (file, '-', or QR PNGs) and show what the wallet knows of it; also Ethereum requests and signatures.",
        discussion: """
            Shows what airlock-signer inspect shows (transaction id, inputs, outputs with addresses and amounts, \
            fee and fee rate, signatures, warnings; for a multisig input, which cosigners have signed by \
            fingerprint and how many signatures are missing), then which inputs spend this wallet's coins and which outputs \
            pay it back (receive or change, with the derivation index), and the BIP329 labels of the transaction, \
            its inputs, outputs and addresses.

            An Ethereum ur:eth-sign-request shows its request id, chain id, path and address, and what it signs \
            (recipient, value, nonce, fees and an ERC-20 call; a message; typed data); a ur:eth-signature its \
            request id and r, s, v. --json gives "type": "eth-sign-request" or "eth-signature".

            Examples:
              airlock-watcher inspect unsigned.psbt
              airlock-watcher --wallet savings inspect frames/ --json
              airlock-watcher inspect request.png
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The PSBT: a file, '-' for stdin, or PNG images (or a directory of them) of its QR codes.")
    var input: [String]

    /// One input or output as the wallet sees it.
    struct Entry: Encodable {
        let index: Int
        let outpoint: String?
        let address: String?
        let amount: UInt64?
        let own: Bool
        let keychain: String?
        let derivationIndex: Int?
        let labels: [String]
        let signatures: Int?
        let finalized: Bool?
        /// A multisig input's cosigners, who has signed and how many signatures are missing.
        var multisig: MultisigStatusJSON?

        enum CodingKeys: String, CodingKey {
            case index, outpoint, address, amount, own, keychain, labels, signatures, finalized, multisig
            case derivationIndex = "derivation_index"
        }
    }

    /// `inspect --json`.
    struct Report: Encodable {
        let type = "psbt"
        let wallet: String
        let network: String
        let txid: String
        let fee: UInt64?
        let feeRate: Double?
        let vsize: Int
        let complete: Bool
        let label: String?
        let inputs: [Entry]
        let outputs: [Entry]
        /// What leaves the wallet (own inputs minus own outputs), when every own input's amount is known.
        let net: Int64?
        let warnings: [String]

        enum CodingKeys: String, CodingKey {
            case type, wallet, network, txid, fee, vsize, complete, label, inputs, outputs, net, warnings
            case feeRate = "fee_rate"
        }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let read = try InputReader.read(input, expecting: [.psbt, .ethSignRequest, .ethSignature])
            // An Ethereum request or signature: shown as the signer's inspect shows it (no wallet needed).
            if let ethereum = try Self.ethereumReport(read.payload) {
                if global.json { try JSONOutput.print(ethereum.json) } else { print(ethereum.text, terminator: "") }
                return
            }
            let psbt = try PSBTFiles.read(input)
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let decoded = try PSBTReport(psbt, network: wallet.network)
            let view = try PSBTWalletView(decoded.analysis, store: context.store, wallet: wallet)
            if global.json {
                try JSONOutput.print(Report(decoded, view: view, wallet: wallet.name))
            } else {
                print(decoded.text, terminator: "")
                print(Self.text(decoded, view: view, wallet: wallet).joined(separator: "\n"))
            }
        }
    }

    static func ethereumReport(_ payload: Payload) throws -> EthPayloadReport? {
        switch payload {
        case .ethSignRequest(let request): try EthPayloadReport(request: request)
        case .ethSignature(let signature): EthPayloadReport(signature: signature)
        default: nil
        }
    }

    /// The wallet's view after the decoded PSBT: each input and output (own or not, labels, a multisig input's
    /// cosigners, a policy input's state), and the net amount.
    static func text(_ decoded: PSBTReport, view: PSBTWalletView, wallet: WalletRecord) -> [String] {
        var lines = [
            "wallet '\(DisplayText.clean(wallet.name))':"
                + (view.label.map { " transaction label \"\(DisplayText.clean($0))\"" } ?? "")
        ]
        let policies = ((try? Account(record: wallet))?.descriptors ?? []).filter { $0.miniscript != nil }
        for entry in view.inputs {
            lines.append("  input \(entry.index): " + describe(entry))
            if let status = decoded.multisigStatuses[entry.index] {
                let owner = entry.own != nil ? "'\(DisplayText.clean(wallet.name))' " : ""
                lines.append("    multisig \(owner)\(status.summary())")
            }
            if let line = PSBTWalletView.policyLine(
                decoded.psbt, input: entry.index, policies: policies, wallet: wallet.name)
            {
                lines.append("    \(line)")
            }
        }
        lines += view.outputs.map { "  output \($0.index): " + describe($0) }
        if let net = view.net { lines.append("  net for the wallet: \(net.btcString) BTC") }
        return lines
    }

    private static func describe(_ entry: PSBTWalletView.Entry) -> String {
        var text = entry.own.map { "own (\($0.keychain.description) \($0.index))" } ?? "not this wallet's"
        if !entry.labels.isEmpty {
            text += "  labels: " + entry.labels.map { "\"\(DisplayText.clean($0))\"" }.joined(separator: ", ")
        }
        return text
    }
}

extension Inspect.Report {
    init(_ decoded: PSBTReport, view: PSBTWalletView, wallet: String) {
        let analysis = decoded.analysis
        func entry(_ e: PSBTWalletView.Entry, input: Bool) -> Inspect.Entry {
            Inspect.Entry(
                index: e.index, outpoint: e.outpoint, address: e.address, amount: e.amount?.sats, own: e.own != nil,
                keychain: e.own?.keychain.description, derivationIndex: e.own?.index, labels: e.labels,
                signatures: input ? decoded.signatureCount(decoded.psbt.inputs[e.index]) : nil,
                finalized: input ? decoded.psbt.inputs[e.index].isFinalized : nil,
                multisig: input
                    ? decoded.multisigStatuses[e.index].map {
                        MultisigStatusJSON($0, wallet: e.own != nil ? wallet : nil)
                    }
                    : nil)
        }
        self.init(
            wallet: wallet, network: decoded.network.rawValue, txid: analysis.txid.hexString,
            fee: analysis.fee?.sats, feeRate: analysis.feeRate.map { ($0 * 100).rounded() / 100 },
            vsize: analysis.estimatedVSize, complete: decoded.isComplete, label: view.label,
            inputs: view.inputs.map { entry($0, input: true) }, outputs: view.outputs.map { entry($0, input: false) },
            net: view.net?.sats, warnings: decoded.warnings.map(\.description))
    }
}
