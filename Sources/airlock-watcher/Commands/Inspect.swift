import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Watcher

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
            let ethereum: EthPayloadReport?
            switch read.payload {
            case .ethSignRequest(let request): ethereum = try EthPayloadReport(request: request)
            case .ethSignature(let signature): ethereum = EthPayloadReport(signature: signature)
            default: ethereum = nil
            }
            if let ethereum {
                if global.json { try JSONOutput.print(ethereum.json) } else { print(ethereum.text, terminator: "") }
                return
            }
            let psbt = try PSBTFiles.read(input)
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let id = try wallet.requireID()
            let decoded = try PSBTReport(psbt, network: wallet.network)
            let analysis = decoded.analysis
            let byScript = Dictionary(
                try context.store.addresses(walletID: id).map { ($0.script, $0) }, uniquingKeysWith: { a, _ in a })
            var labels: [String: [String]] = [:]
            for label in try context.store.labels(walletID: id) {
                guard let text = label.label, !text.isEmpty else { continue }
                labels["\(label.type) \(label.ref)", default: []].append(text)
            }
            func labelsOf(_ keys: [String]) -> [String] { keys.flatMap { labels[$0] ?? [] } }

            var inputs: [Entry] = []
            var statuses: [Int: (MultisigSignatureStatus, String?)] = [:]
            var ownIn: Int64? = 0
            for input in analysis.inputs {
                let record = input.scriptPubKey.flatMap { byScript[$0] }
                if record != nil { ownIn = input.amount.flatMap { a in ownIn.map { $0 + Int64(a.sats) } } }
                let outpoint = input.outpoint.description
                inputs.append(
                    Entry(
                        index: input.index, outpoint: outpoint, address: input.address, amount: input.amount?.sats,
                        own: record != nil, keychain: record?.keychain.description, derivationIndex: record?.index,
                        labels: labelsOf(
                            ["input \(outpoint)", "output \(outpoint)", "tx \(input.outpoint.txid.hexString)"]
                                + (input.address.map { ["addr \($0)"] } ?? [])),
                        signatures: decoded.signatureCount(psbt.inputs[input.index]), finalized: input.isFinalized,
                        multisig: nil))
                if let status = decoded.multisigStatuses[input.index] {
                    let name = record != nil ? wallet.name : nil
                    statuses[input.index] = (status, name)
                    inputs[inputs.count - 1].multisig = MultisigStatusJSON(status, wallet: name)
                }
            }
            var outputs: [Entry] = []
            var ownOut: Int64 = 0
            for output in analysis.outputs {
                let record = byScript[output.scriptPubKey]
                if record != nil { ownOut += Int64(output.amount.sats) }
                let outpoint = "\(analysis.txid.hexString):\(output.index)"
                outputs.append(
                    Entry(
                        index: output.index, outpoint: outpoint, address: output.address,
                        amount: output.amount.sats, own: record != nil, keychain: record?.keychain.description,
                        derivationIndex: record?.index,
                        labels: labelsOf(["output \(outpoint)"] + (output.address.map { ["addr \($0)"] } ?? [])),
                        signatures: nil, finalized: nil, multisig: nil))
            }
            let net = ownIn.map { ownOut - $0 }
            let report = Report(
                wallet: wallet.name, network: decoded.network.rawValue, txid: analysis.txid.hexString,
                fee: analysis.fee?.sats, feeRate: analysis.feeRate.map { ($0 * 100).rounded() / 100 },
                vsize: analysis.estimatedVSize, complete: decoded.isComplete,
                label: labels["tx \(analysis.txid.hexString)"]?.first, inputs: inputs, outputs: outputs, net: net,
                warnings: decoded.warnings.map(\.description))
            if global.json {
                try JSONOutput.print(report)
                return
            }
            print(decoded.text, terminator: "")
            print(
                "wallet '\(DisplayText.clean(wallet.name))':"
                    + (report.label.map { " transaction label \"\(DisplayText.clean($0))\"" } ?? ""))
            let policies = ((try? Account(record: wallet))?.descriptors ?? []).filter { $0.miniscript != nil }
            for entry in inputs {
                print("  input \(entry.index): " + describe(entry))
                if let (status, name) = statuses[entry.index] {
                    let owner = name.map { "'\(DisplayText.clean($0))' " } ?? ""
                    print("    multisig \(owner)\(status.summary())")
                }
                if let line = policyLine(psbt, input: entry.index, policies: policies, wallet: wallet.name) {
                    print("    \(line)")
                }
            }
            for entry in outputs { print("  output \(entry.index): " + describe(entry)) }
            if let net { print("  net for the wallet: \(btcSigned(net)) BTC") }
        }
    }

    /// For an input of the wallet's miniscript policy: who has signed and whether it can be finalized now (the
    /// finalizer's reason when not: signatures missing, or a timelock the transaction does not meet).
    private func policyLine(_ psbt: PSBT, input: Int, policies: [Descriptor], wallet: String) -> String? {
        guard !policies.isEmpty, !psbt.inputs[input].isFinalized,
            psbt.miniscriptMatch(ofInput: input, descriptors: policies) != nil
        else { return nil }
        let signed = Set(psbt.partialSignatures(ofInput: input).keys)
        let signers = psbt.inputs[input].bip32Derivations.filter { signed.contains($0.publicKey.compressed) }
            .map(\.origin.fingerprint.hexString)
        var line = "policy '\(DisplayText.clean(wallet))': signed by "
        line += signers.isEmpty ? "nobody yet" : signers.joined(separator: ", ")
        var probe = psbt
        do {
            try probe.finalizeMiniscriptInput(input, descriptors: policies)
            line += "; can be finalized now"
        } catch PSBTError.cannotFinalize(_, let reason) {
            line += "; cannot be finalized yet: \(reason)"
        } catch {
            line += "; cannot be finalized yet: \(error)"
        }
        return line
    }

    private func describe(_ entry: Entry) -> String {
        var text = entry.own ? "own (\(entry.keychain ?? "?") \(entry.derivationIndex ?? 0))" : "not this wallet's"
        if !entry.labels.isEmpty {
            text += "  labels: " + entry.labels.map { "\"\(DisplayText.clean($0))\"" }.joined(separator: ", ")
        }
        return text
    }
}
